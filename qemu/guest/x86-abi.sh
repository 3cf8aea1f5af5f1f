# shellcheck shell=bash
# Sourced by the kernel fetchers: x86_abi prints the ABI of the Debian
# kernel the host's linux-headers-amd64 names ("6.1.0-56-amd64"), the one
# every node's kernel follows, or says why not and fails.
x86_abi() {
	local dep abi
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null) || {
		echo "fetch-kernel: linux-headers-amd64 is not installed (make deps)" >&2
		return 1
	}
	# "linux-headers-6.1.0-56-amd64 (= 6.1.192-2)" -> 6.1.0-56-amd64
	abi=$(printf '%s\n' "$dep" | sed -n 's/.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
	[ -n "$abi" ] || {
		echo "fetch-kernel: cannot tell the kernel ABI from '$dep'" >&2
		return 1
	}
	printf '%s\n' "$abi"
}
