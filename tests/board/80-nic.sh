#!/bin/bash
# The shared 10 GbE NIC and its eusrv_eth driver, on two nodes and the
# outside host, then on four: link and addresses, ping and TCP/UDP both
# ways, every ethtool option on the live interface checked against the
# model's registers (ethtool -d, procfs), procfs reads and writes with bad
# input, carrier from the PHY, the PHY as a phylib phy_device on the
# MAC's MDIO bus (sysfs, MII ioctls), DMA errors recovered, RX ring exhaustion,
# jumbo frames with the data verified, unloading under traffic, and the
# round-robin scheduler's fairness with four nodes sending to the outside
# host at once.  The model runs with --axidma-pg021: the engines take only
# PG021's interrupt acknowledgement (1s written to DMASR), as the Xilinx
# AXI DMA does, and count any use of the virtual board's own as a
# programming error (checked after the two-node part).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export EUSRV_BOARD_DIR=${EUSRV_BOARD_DIR:-/dev/shm/eusrv-nic}
. "$TOP/tests/board/lib.sh"
board_suite_begin

P=/proc/eusrv-eth/eusrv0
# Fairness: every node's share within this many percent of the others'.
FAIR_PCT=10
FAIR_SECS=${NIC_FAIR_SECS:-25}
FAIR_LINE_MBIT=20

# reg NODE FILE: a register's procfs file on NODE.
# Fails, printing nothing, when the file cannot be read or is empty, so
# that two failed reads never compare equal by accident.
reg() {
	local v
	v=$(on "$1" "cat $P/$2" 2>/dev/null | tr -d '\r')
	[ -n "$v" ] || return 1
	echo "$v"
}

# stat NODE NAME: one ethtool -S counter on NODE.
ethstat() {
	on "$1" "ethtool -S eusrv0" 2>/dev/null | sed -n "s/^ *$2: //p"
}

# dumpword NODE OFFSET: the u32 at OFFSET of NODE's ethtool -d dump, as 0x%08x.
dumpword() {
	printf '0x%s\n' "$(on "$1" "ethtool -d eusrv0 raw on | od -A n -t x4 -v -j $2 -N 4" |
		tr -d ' \r')"
}

# field VALUE SHIFT MASK: (VALUE >> SHIFT) & MASK, in decimal.
field() {
	echo $((($1 >> $2) & $3))
}

# wait_carrier NODE 0|1: the carrier reaches the state within 10 s.
wait_carrier() {
	on "$1" "for i in \$(seq 100); do [ \"\$(cat /sys/class/net/eusrv0/carrier 2>/dev/null)\" = $2 ] && exit 0; sleep 0.1; done; exit 1"
}

# iperf_rate NODE ARGS...: iperf3 -c ARGS on NODE; the receiver's Mbit/s.
iperf_rate() {
	local node=$1
	shift
	on "$node" "iperf3 -f m $*" 2>&1 | awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") r = $i } END { if (r != "") print r; else exit 1 }'
}

# ---- Two nodes and the outside host ------------------------------------------

board_up "2 nodes and the outside host boot" -n 2 --outside --axidma-pg021

for n in 0 1; do
	check "node$n: eusrv0 has 198.19.1.$((10 + n))/24" \
		on node$n "ip -br addr show eusrv0 | grep -q '198\.19\.1\.$((10 + n))/24'"
	check "node$n: carrier is up" wait_carrier node$n 1
	check "node$n: procfs directory made at probe" on node$n "[ -r $P/id ]"
done

check "ping node0 -> node1" on node0 "ping -c 3 -W 5 node1-eth"
check "ping node1 -> node0" on node1 "ping -c 3 -W 5 node0-eth"
check "ping node0 -> outside" on node0 "ping -c 3 -W 5 outside"
check "ping outside -> node1" board exec outside "ping -c 3 -W 5 198.19.1.11"

on node1 "iperf3 -s -D" >/dev/null
board exec outside "iperf3 -s -D" >/dev/null
sleep 1
if r=$(iperf_rate node0 -c node1-eth -t 3); then
	ok "TCP node0 -> node1: $r Mbit/s"
else
	not_ok "TCP node0 -> node1"
fi
if r=$(iperf_rate node0 -c node1-eth -t 3 -R); then
	ok "TCP node1 -> node0: $r Mbit/s"
else
	not_ok "TCP node1 -> node0"
fi
if r=$(iperf_rate node1 -c outside -t 3); then
	ok "TCP node1 -> outside: $r Mbit/s"
else
	not_ok "TCP node1 -> outside"
fi
if r=$(iperf_rate node0 -c outside -t 3 -R); then
	ok "TCP outside -> node0: $r Mbit/s"
else
	not_ok "TCP outside -> node0"
fi
if r=$(iperf_rate node0 -c node1-eth -u -b 30M -t 3); then
	ok "UDP node0 -> node1: $r Mbit/s"
else
	not_ok "UDP node0 -> node1"
fi
if r=$(iperf_rate node1 -c outside -u -b 30M -t 3); then
	ok "UDP node1 -> outside: $r Mbit/s"
else
	not_ok "UDP node1 -> outside"
fi

# The MAC counts what was sent: 50 pings, and ethtool -S agrees with procfs.
tx0=$(reg node0 port_tx_frames)
rx1=$(reg node1 port_rx_frames)
on node0 "ping -c 50 -i 0.02 -q node1-eth" >/dev/null
tx1=$(reg node0 port_tx_frames)
rx2=$(reg node1 port_rx_frames)
if [ $((tx1 - tx0)) -ge 50 ] && [ $((rx2 - rx1)) -ge 50 ]; then
	ok "50 pings: node0's port TX and node1's port RX frames grow by >= 50"
else
	not_ok "50 pings: MAC counters # node0 tx +$((tx1 - tx0)), node1 rx +$((rx2 - rx1))"
fi
s=$(ethstat node0 mac_tx_frames)
t=$(reg node0 port_tx_frames)
if [ -n "$s" ] && [ "$t" -ge "$s" ] && [ $((t - s)) -le 10 ]; then
	ok "ethtool -S mac_tx_frames ($s) matches procfs port_tx_frames ($t)"
else
	not_ok "ethtool -S mac_tx_frames ($s) matches procfs port_tx_frames ($t)"
fi
t=$(reg node0 total_tx_frames)
if [ "$t" -ge "$tx1" ]; then
	ok "the MAC's total counts at least node0's frames"
else
	not_ok "the MAC's total counts at least node0's frames # $t < $tx1"
fi

# ---- ethtool -------------------------------------------------------------------

check "ethtool -i names the driver" on node0 "ethtool -i eusrv0 | grep -q '^driver: eusrv_eth'"
w=$(dumpword node0 0)
[ "$w" = 0x4d430001 ] && ok "ethtool -d: MAC ID at 0x000" || not_ok "ethtool -d: MAC ID # $w"
w=$(dumpword node0 $((0x14)))
[ $((w)) = 1500 ] && ok "ethtool -d: MTU register 1500" || not_ok "ethtool -d: MTU register # $w"
ctrl=$(dumpword node0 $((0x10)))
[ "$ctrl" = "$(reg node0 ctrl)" ] && ok "ethtool -d: CTRL as procfs reads it ($ctrl)" ||
	not_ok "ethtool -d: CTRL as procfs reads it # $ctrl vs $(reg node0 ctrl)"
[ $((ctrl & 0x33)) = $((0x33)) ] && ok "CTRL: RX, TX and both checksum offloads on" ||
	not_ok "CTRL: RX, TX and both checksum offloads on # $ctrl"

check "ethtool -c: defaults rx 16 frames / 30 us" \
	on node0 "ethtool -c eusrv0 | grep -q '^rx-usecs: *30' && ethtool -c eusrv0 | grep -q '^rx-frames: *16'"
check "ethtool -C rx-frames 8 rx-usecs 50 tx-frames 4 tx-usecs 20 (up)" \
	on node0 "ethtool -C eusrv0 rx-frames 8 rx-usecs 50 tx-frames 4 tx-usecs 20"
tcr=$(dumpword node0 $((0x400)))
rcr=$(dumpword node0 $((0x430)))
if [ "$(field "$rcr" 16 255)" = 8 ] && [ "$(field "$rcr" 24 255)" = 50 ] &&
	[ "$(field "$tcr" 16 255)" = 4 ] && [ "$(field "$tcr" 24 255)" = 20 ] &&
	[ $((tcr & 1)) = 1 ] && [ $((rcr & 1)) = 1 ]; then
	ok "DMACR of both running channels carries the new threshold and delay"
else
	not_ok "DMACR carries the new threshold and delay # MM2S $tcr, S2MM $rcr"
fi
check "ethtool -c reads the new values back" \
	on node0 "ethtool -c eusrv0 | grep -q '^tx-frames: *4' && ethtool -c eusrv0 | grep -q '^rx-usecs: *50'"
check "ethtool -C rx-frames 0 is refused" on node0 "! ethtool -C eusrv0 rx-frames 0"
check "ethtool -C rx-usecs 300 is refused" on node0 "! ethtool -C eusrv0 rx-usecs 300"
check "traffic with the new coalescing" on node0 "ping -c 3 -W 5 node1-eth"
on node0 "ethtool -C eusrv0 rx-frames 16 rx-usecs 30 tx-frames 16 tx-usecs 30" >/dev/null

check "ethtool -g: RX 128, TX 64 by default" \
	on node0 "ethtool -g eusrv0 | sed -n '/^Current/,\$p' | grep -q '^RX:[[:space:]]*128' && ethtool -g eusrv0 | sed -n '/^Current/,\$p' | grep -q '^TX:[[:space:]]*64'"
check "ethtool -G rx 256 tx 128 on the live interface" on node0 "ethtool -G eusrv0 rx 256 tx 128"
check "ethtool -g reads 256/128 back" \
	on node0 "ethtool -g eusrv0 | sed -n '/^Current/,\$p' | grep -q '^RX:[[:space:]]*256' && ethtool -g eusrv0 | sed -n '/^Current/,\$p' | grep -q '^TX:[[:space:]]*128'"
check "traffic with the new rings" on node0 "ping -c 3 -W 5 node1-eth && ping -c 3 -W 5 outside"
check "ethtool -G rx 4 is refused" on node0 "! ethtool -G eusrv0 rx 4"
check "ethtool -G tx 2048 is refused" on node0 "! ethtool -G eusrv0 tx 2048"
on node0 "ethtool -G eusrv0 rx 128 tx 64" >/dev/null

check "ethtool -k: scatter-gather and checksums on" \
	on node0 "ethtool -k eusrv0 | grep -q '^scatter-gather: on' && ethtool -k eusrv0 | grep -q '^tx-checksumming: on' && ethtool -k eusrv0 | grep -q '^rx-checksumming: on'"
check "ethtool -K tx off rx off" on node0 "ethtool -K eusrv0 tx off rx off"
ctrl=$(reg node0 ctrl)
[ $((ctrl & 0x30)) = 0 ] && ok "CTRL: both checksum offloads off ($ctrl)" ||
	not_ok "CTRL: both checksum offloads off # $ctrl"
c0=$(reg node0 port_tx_csum) || c0="unreadable (before)"
if r=$(iperf_rate node0 -c node1-eth -t 2); then
	ok "TCP with checksums in software: $r Mbit/s"
else
	not_ok "TCP with checksums in software"
fi
c1=$(reg node0 port_tx_csum) || c1="unreadable (after)"
[ "$c0" = "$c1" ] && ok "the MAC inserted no checksum for node0" ||
	not_ok "the MAC inserted no checksum for node0 # $c0 -> $c1"
check "ethtool -K tx on rx on" on node0 "ethtool -K eusrv0 tx on rx on"
ctrl=$(reg node0 ctrl)
[ $((ctrl & 0x30)) = $((0x30)) ] && ok "CTRL: both checksum offloads on again" ||
	not_ok "CTRL: both checksum offloads on again # $ctrl"
on node0 "iperf3 -c node1-eth -t 2" >/dev/null 2>&1
c2=$(reg node0 port_tx_csum) || c2=-1
[ "$c2" -gt "$c1" ] 2>/dev/null && ok "the MAC inserts checksums again (+$((c2 - c1)))" ||
	not_ok "the MAC inserts checksums again # $c1 -> $c2"
b=$(reg node0 port_tx_csum_bad) || b=unreadable
[ "$b" = 0 ] && ok "no checksum request was refused by the MAC" ||
	not_ok "no checksum request was refused by the MAC # $b"

check "ethtool: 10000Mb/s full duplex, link detected" \
	on node0 "ethtool eusrv0 | grep -q 'Speed: 10000Mb/s' && ethtool eusrv0 | grep -q 'Duplex: Full' && ethtool eusrv0 | grep -q 'Link detected: yes'"
check "ethtool: 10000baseSR/Full supported" on node0 "ethtool eusrv0 | grep -q '10000baseSR/Full'"
check "ethtool -s speed 10000 duplex full autoneg off is accepted" \
	on node0 "ethtool -s eusrv0 speed 10000 duplex full autoneg off"
check "ethtool -s speed 1000 is refused" on node0 "! ethtool -s eusrv0 speed 1000 duplex full autoneg off"
lc=$(reg node0 link_changes)
check "ethtool -r (PHY reset)" on node0 "ethtool -r eusrv0"
check "the link comes back after the PHY reset" wait_carrier node0 1
lc2=$(reg node0 link_changes)
[ $((lc2)) -ge $((lc + 2)) ] && ok "the PHY reset took the link down and up (LINK_CHANGES $lc -> $lc2)" ||
	not_ok "the PHY reset took the link down and up # LINK_CHANGES $lc -> $lc2"

# ---- procfs --------------------------------------------------------------------

n=$(on node0 "ls $P | wc -l")
[ "$n" -ge 80 ] && ok "procfs: $n register files" || not_ok "procfs: register files # $n"
[ "$(reg node0 id)" = 0x4d430001 ] && ok "procfs: id reads 0x4d430001" || not_ok "procfs: id # $(reg node0 id)"
[ "$(reg node0 phy_pma_devid1)" = 0x4555 ] && ok "procfs: PHY identifier over MDIO" ||
	not_ok "procfs: PHY identifier # $(reg node0 phy_pma_devid1)"
[ $(($(reg node0 phy_pcs_10gbrt_stat1) & 0x1000)) != 0 ] &&
	ok "procfs: PCS 10GBASE-R receive link up" || not_ok "procfs: PCS receive link"
check "procfs: write the MTU register" on node0 "echo 1500 > $P/mtu && [ \$(cat $P/mtu) = 0x000005dc ]"
check "procfs: write CTRL back (hex)" on node0 "v=\$(cat $P/ctrl); echo \$v > $P/ctrl && [ \$(cat $P/ctrl) = \$v ]"
for bad in "mtu junk" "mtu 9001" "mtu 67" "ctrl 0x400" "addr_hi 0x10000" "id 1" \
	"port_tx_frames 0" "phy_vend_ctrl 2" "phy_pma_ctrl1 0x10000" "phy_pma_stat1 0"; do
	set -- $bad
	check "procfs: '$2' > $1 fails with EINVAL" \
		on node0 "out=\$(/bin/echo '$2' 2>&1 > $P/$1); [ \$? -ne 0 ] && echo \"\$out\" | grep -q 'Invalid argument'"
done
[ "$(reg node0 mtu)" = 0x000005dc ] && ok "procfs: refused writes changed nothing" ||
	not_ok "procfs: refused writes changed nothing # mtu $(reg node0 mtu)"

# ---- Carrier from the PHY ------------------------------------------------------

check "procfs: PHY vendor control LINK_DOWN over MDIO" on node0 "echo 1 > $P/phy_vend_ctrl"
check "node0: carrier drops" wait_carrier node0 0
check "node1: carrier drops too (one shared PHY)" wait_carrier node1 0
[ $(($(reg node1 link) & 1)) = 0 ] && ok "node1's LINK register says down" || not_ok "node1's LINK register says down"
check "no traffic while the link is down" on node0 "! ping -c 2 -W 1 node1-eth"
check "procfs: LINK_DOWN released" on node0 "echo 0 > $P/phy_vend_ctrl"
check "node0: carrier recovers" wait_carrier node0 1
check "node1: carrier recovers" wait_carrier node1 1
check "traffic after the link came back" on node1 "ping -c 3 -W 5 node0-eth"
check "model phy-link down" board model phy-link down
check "node1: carrier drops on the model's cable pull" wait_carrier node1 0
board model phy-link up >/dev/null
check "node1: carrier recovers on the model's reconnect" wait_carrier node1 1

# ---- The PHY on the MAC's MDIO bus (phylib) --------------------------------------

build_prog mii-c45
# The netdev's PHY: a phy_device on the MDIO bus, attached with phylib's
# generic clause-45 driver.
phy=$(on node0 "readlink -f /sys/class/net/eusrv0/phydev" | tr -d '\r')
case $phy in
/sys/devices/*) ok "node0: /sys/class/net/eusrv0/phydev -> ${phy#/sys/devices/}" ;;
*) not_ok "node0: /sys/class/net/eusrv0/phydev # '$phy'" ;;
esac
check "the PHY is an MDIO device (/sys/bus/mdio_bus/devices/${phy##*/})" \
	on node0 "[ -n '$phy' ] && [ \"\$(readlink -f /sys/bus/mdio_bus/devices/${phy##*/})\" = '$phy' ]"
port=$(on node0 "readlink -f /sys/class/net/eusrv0/device" | tr -d '\r')
case $phy in
"$port"/*/*) ok "its MDIO bus is the port's (${phy#"$port"/})" ;;
*) not_ok "its MDIO bus is the port's # '$phy' not under '$port'" ;;
esac
d=$(on node0 "basename \"\$(readlink '$phy/driver')\"" | tr -d '\r')
[ "$d" = "Generic Clause 45 PHY" ] && ok "the PHY's driver: phylib's $d" ||
	not_ok "the PHY's driver: phylib's Generic Clause 45 PHY # '$d'"
check "the PHY's attached_dev is eusrv0" \
	on node0 "[ \"\$(basename \"\$(readlink '$phy/attached_dev')\")\" = eusrv0 ]"
check "the PHY's interface: xgmii" on node0 "[ \"\$(cat '$phy/phy_interface')\" = xgmii ]"
check "ethtool: PHY address 0, fibre" \
	on node0 "ethtool eusrv0 | grep -q 'PHYAD: 0' && ethtool eusrv0 | grep -q 'Port: FIBRE'"
a=$(on node0 "$prog eusrv0 phy" | tr -d '\r')
[ "$a" = 0 ] && ok "SIOCGMIIPHY: the PHY at address 0" || not_ok "SIOCGMIIPHY: the PHY at address 0 # '$a'"
# reg_ioctl NODE DEVAD REG: a clause-45 register of PHY 0 through SIOCGMIIREG.
reg_ioctl() {
	on "$1" "$prog eusrv0 0 $2 $3" 2>/dev/null | tr -d '\r'
}
while read -r mmd r want what; do
	v=$(reg_ioctl node0 "$mmd" "$r")
	[ "$v" = "$want" ] && ok "SIOCGMIIREG MMD $mmd register $r ($what): $v" ||
		not_ok "SIOCGMIIREG MMD $mmd register $r ($what) # '$v', not $want"
done <<'EOF'
1 2 0x4555 PMA/PMD identifier 1
1 3 0x5201 PMA/PMD identifier 2
3 2 0x4555 PCS identifier 1
3 3 0x5201 PCS identifier 2
1 5 0x000a PMA/PMD devices in package 1
1 6 0x4000 PMA/PMD devices in package 2
1 8 0x8081 PMA/PMD status 2
EOF
v=$(reg_ioctl node1 1 1)
[ $((${v:-0} & 4)) = 4 ] && ok "SIOCGMIIREG on node1: PMA/PMD link status up ($v)" ||
	not_ok "SIOCGMIIREG on node1: PMA/PMD link status up # '$v'"
[ "$(reg_ioctl node0 3 32)" = "$(reg node0 phy_pcs_10gbrt_stat1)" ] &&
	ok "SIOCGMIIREG and procfs read the same PCS 10GBASE-R status" ||
	not_ok "SIOCGMIIREG and procfs read the same PCS 10GBASE-R status"
check "SIOCSMIIREG: vendor control LINK_DOWN (MMD 30 register 0)" on node0 "$prog eusrv0 0 30 0 1"
check "node0: carrier drops (phylib saw the PHY's link go)" wait_carrier node0 0
check "node1: carrier drops too" wait_carrier node1 0
check "the kernel log has phylib's link down" on node0 "dmesg | grep -q 'eusrv0: Link is Down'"
check "SIOCSMIIREG: LINK_DOWN released" on node0 "$prog eusrv0 0 30 0 0"
check "node0: carrier recovers" wait_carrier node0 1
check "node1: carrier recovers" wait_carrier node1 1
check "traffic after the PHY's link came back" on node0 "ping -c 3 -W 5 node1-eth"
check "SIOCGMIIREG to a PHY address with no PHY reads all ones" \
	on node0 "[ \"\$($prog eusrv0 5 1 2)\" = 0xffff ]"

# ---- DMA errors ----------------------------------------------------------------

for kind in "mm2s slave" "s2mm decode" "mm2s sg-internal" "s2mm sg-slave"; do
	set -- $kind
	r0=$(ethstat node0 dma_error_resets)
	board model dma-error 0 $kind >/dev/null
	on node0 "ping -c 2 -W 1 node1-eth" >/dev/null 2>&1
	check "DMA error $1 $2: traffic resumes" on node0 "ping -c 3 -W 5 node1-eth"
	r1=$(ethstat node0 dma_error_resets)
	[ $((r1)) -gt $((r0)) ] && ok "DMA error $1 $2: the error-reset task ran ($r0 -> $r1)" ||
		not_ok "DMA error $1 $2: the error-reset task ran # $r0 -> $r1"
done
if r=$(iperf_rate node0 -c node1-eth -t 2); then
	ok "TCP after the DMA errors: $r Mbit/s"
else
	not_ok "TCP after the DMA errors"
fi

# ---- RX ring exhaustion ----------------------------------------------------------

on node1 "ethtool -G eusrv0 rx 8 && ethtool -C eusrv0 rx-frames 255 rx-usecs 255" >/dev/null
check "node1: RX ring of 8 for the flood" wait_carrier node1 1
d0=$(reg node1 port_rx_nodesc)
on node0 "iperf3 -c node1-eth -u -b 400M -l 1400 -t 3" >/dev/null 2>&1
d1=$(reg node1 port_rx_nodesc)
[ $((d1)) -gt $((d0)) ] && ok "RX ring exhaustion: the MAC drops and counts (+$((d1 - d0)) RX_NODESC)" ||
	not_ok "RX ring exhaustion: the MAC drops and counts # $d0 -> $d1"
check "RX ring exhaustion: node1 still receives" on node0 "ping -c 3 -W 5 node1-eth"
check "RX ring exhaustion: other ports unaffected" board exec outside "ping -c 3 -W 5 198.19.1.10"
on node1 "ethtool -G eusrv0 rx 128 && ethtool -C eusrv0 rx-frames 16 rx-usecs 30" >/dev/null
wait_carrier node1 1 >/dev/null

# ---- Jumbo frames --------------------------------------------------------------

check "MTU 9000 on both nodes" on node0 "ip link set eusrv0 mtu 9000"
on node1 "ip link set eusrv0 mtu 9000" >/dev/null
wait_carrier node0 1 >/dev/null
wait_carrier node1 1 >/dev/null
[ "$(reg node0 mtu)" = 0x00002328 ] && ok "the MAC port's MTU register is 9000" ||
	not_ok "the MAC port's MTU register is 9000 # $(reg node0 mtu)"
check "ping with 8972-byte payload, not fragmented" on node0 "ping -c 3 -W 5 -M do -s 8972 node1-eth"
check "MTU 9001 is refused" on node0 "! ip link set eusrv0 mtu 9001"
on node1 "rm -f /tmp/jumbo.rx; (nc -l 5001 </dev/null >/tmp/jumbo.rx 2>/dev/null &); sleep 0.5" >/dev/null
sum0=$(on node0 "head -c 20000000 /dev/urandom > /tmp/jumbo.tx && sha256sum < /tmp/jumbo.tx && nc -N node1-eth 5001 < /tmp/jumbo.tx" | cut -d' ' -f1)
sleep 1
sum1=$(on node1 "sha256sum < /tmp/jumbo.rx" | cut -d' ' -f1)
if [ -n "$sum0" ] && [ "$sum0" = "$sum1" ]; then
	ok "20 MB over TCP with MTU 9000: data verified (sha256 ${sum0:0:16}...)"
else
	not_ok "20 MB over TCP with MTU 9000: data verified # '$sum0' vs '$sum1'"
fi
[ "$(reg node1 port_rx_oversize)" = 0 ] && ok "no jumbo frame counted oversize" ||
	not_ok "no jumbo frame counted oversize # $(reg node1 port_rx_oversize)"
on node0 "ip link set eusrv0 mtu 1500" >/dev/null
on node1 "ip link set eusrv0 mtu 1500" >/dev/null

# ---- Unloading under traffic -----------------------------------------------------

on node0 "(iperf3 -c node1-eth -t 20 </dev/null >/dev/null 2>&1 &); (ping -f node1-eth </dev/null >/dev/null 2>&1 &); sleep 2" >/dev/null
check "rmmod eusrv_eth while traffic flows" on node0 "rmmod eusrv_eth"
check "eusrv0, its procfs directory and its PHY are gone" \
	on node0 "[ ! -e /sys/class/net/eusrv0 ] && [ ! -e $P ] && [ ! -e /sys/bus/mdio_bus/devices/${phy##*/} ]"
check "no oops or warning in node0's kernel log" \
	on node0 "! dmesg | grep -E 'Oops|BUG:|WARNING:|general protection|Call Trace'"
check "insmod eusrv_eth binds the port again" \
	on node0 "insmod $NODE_BUILD/kmod/eusrv_eth.ko && ip addr add 198.19.1.10/24 dev eusrv0 && ip link set eusrv0 up"
check "node0: carrier after reloading" wait_carrier node0 1
check "node0: the PHY is attached again" \
	on node0 "[ \"\$(readlink -f /sys/class/net/eusrv0/phydev)\" = '$phy' ]"
check "traffic after reloading" on node0 "pkill ping; pkill iperf3; ping -c 3 -W 5 node1-eth"

# Thousands of interrupts acknowledged above: none the PG021 way's error
# (BAD_CNT of MM2S and S2MM, the dump's virtual-board words 0x510, 0x530).
for n in node0 node1; do
	b0=$(dumpword $n 0x510) b1=$(dumpword $n 0x530)
	if [ $((b0)) = 0 ] && [ $((b1)) = 0 ]; then
		ok "$n: interrupts acknowledged as PG021 has it (no programming error counted)"
	else
		not_ok "$n: interrupts acknowledged as PG021 has it # BAD_CNT $b0 $b1, last $(dumpword $n 0x514) $(dumpword $n 0x534)"
	fi
done

board stop >/dev/null 2>&1

# ---- Four nodes and the outside host: fairness -----------------------------------

board_up "4 nodes and the outside host boot" -n 4 --outside --axidma-pg021
# Under TCG each sender is bounded by the host CPU its VM gets, which the
# host's scheduler, not the MAC, shares out. Pacing the line below what
# four nodes can send makes the line the bottleneck, as the 10 GbE line is
# the shared resource on the board, so the shares are the MAC's round robin.
check "model line-rate $FAIR_LINE_MBIT (pace the line for the fairness run)" \
	board model line-rate "$FAIR_LINE_MBIT"
check "model refuses line-rate 10001" \
	sh -c '! "$0" model line-rate 10001 2>/dev/null' "$TOP/qemu/board"
# One server per node on the outside host, logging every second with the
# outside host's clock, so the shares are compared over the same seconds.
for n in 0 1 2 3; do
	board exec outside "rm -f /tmp/fair$n.log; iperf3 -s -D -1 -f m -p $((5300 + n)) -i 1 --timestamps='%s ' --logfile /tmp/fair$n.log" >/dev/null
done
sleep 1
pids=()
for n in 0 1 2 3; do
	iperf_rate node$n -c outside -p $((5300 + n)) -t "$FAIR_SECS" >"$BUILD/nic-fair.$n" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
rates=()
for n in 0 1 2 3; do
	rates+=("$(head -n 1 "$BUILD/nic-fair.$n")")
	board exec outside "cat /tmp/fair$n.log" >"$BUILD/nic-fair.$n.log" 2>/dev/null
done
diag "iperf3 -c outside, 4 nodes at once, whole runs (Mbit/s): ${rates[*]}"
# Per node, the mean of the 1-second intervals in the window where all
# four ran: from 3 s after the last one started to 2 s before the first ended.
shares=$(awk '
	FNR == 1 { f++ }
	/Mbits\/sec/ && !/receiver|sender/ && $0 ~ /[0-9.]+-[0-9.]+ +sec/ {
		for (i = 2; i < NF; i++) if ($(i + 1) == "Mbits/sec") r = $i
		n[f]++; t[f, n[f]] = $1; v[f, n[f]] = r
		if (!(f in lo) || $1 < lo[f]) lo[f] = $1
		if (!(f in hi) || $1 > hi[f]) hi[f] = $1
	}
	END {
		if (f != 4) exit 1
		a = lo[1]; b = hi[1]
		for (k = 2; k <= 4; k++) { if (lo[k] > a) a = lo[k]; if (hi[k] < b) b = hi[k] }
		a += 3; b -= 2
		for (k = 1; k <= 4; k++) {
			s = 0; c = 0
			for (j = 1; j <= n[k]; j++) if (t[k, j] >= a && t[k, j] <= b) { s += v[k, j]; c++ }
			if (c < 3) exit 1
			printf "%.1f ", s / c
		}
	}' "$BUILD"/nic-fair.[0-3].log)
if [ $rc -eq 0 ] && [ -n "$shares" ]; then
	ok "4 nodes send to the outside host at once"
	read -r -a sh <<<"$shares"
	spread=$(printf '%s\n' "${sh[@]}" | awk 'NR == 1 || $1 < min { min = $1 } NR == 1 || $1 > max { max = $1 } END { printf "%.1f", (max - min) * 100 / min }')
	sum=$(printf '%s\n' "${sh[@]}" | awk '{ s += $1 } END { print s }')
	diag "while all four ran (Mbit/s): node0 ${sh[0]}, node1 ${sh[1]}, node2 ${sh[2]}, node3 ${sh[3]}; aggregate $sum"
	if awk -v s="$spread" -v f=$FAIR_PCT 'BEGIN { exit !(s <= f) }'; then
		ok "fair shares: ${sh[*]}Mbit/s, spread $spread% <= $FAIR_PCT%"
	else
		not_ok "fair shares: ${sh[*]}Mbit/s, spread $spread% <= $FAIR_PCT%"
	fi
else
	not_ok "4 nodes send to the outside host at once"
	for n in 0 1 2 3; do
		diag "node$n: $(tail -n 3 "$BUILD/nic-fair.$n")"
	done
fi
for n in 0 1 2 3; do
	check "node$n: no DMA error during the fairness run" \
		on node$n "ethtool -S eusrv0 | grep -q 'dma_error_resets: 0'"
done

board stop >/dev/null 2>&1
tap_done
