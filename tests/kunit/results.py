#!/usr/bin/python3
"""kunit.py's results as records for tests/kunit/run.

usage: results.py RESULTS.json EXEC.log OVERLAY_ABS/ OVERLAY_REL/

RESULTS.json and EXEC.log are what `kunit.py exec --json=RESULTS.json`
wrote and printed.  Prints "S<TAB>number of suites", then per KUnit case
"R<TAB>status<TAB>suite: case" (status PASS, SKIP, FAIL or ERROR, the
latter for a crash), followed for a case that did not pass by its log from
kunit.py's report as "D<TAB>line".  Paths into the overlay's snapshot
(OVERLAY_ABS/..., " OVERLAY_REL/...") are shown as repository paths.
"""
import json
import re
import sys

# Lines of a failed case's log shown, the last ones.
LOG_LINES = 30

RESULT = re.compile(r'(\[(PASSED|FAILED|SKIPPED|CRASHED)\]|=+ )')
TIMESTAMP = re.compile(r'^\[\d\d:\d\d:\d\d\] ')


def read_log(path, abs_prefix, rel_prefix):
    with open(path, errors='replace') as f:
        return [TIMESTAMP.sub('', line.rstrip('\n'))
                .replace(abs_prefix, '').replace(' ' + rel_prefix, ' ')
                for line in f
                # kunit.py resets a terminal it may not have.
                if not line.startswith('stty: ')]


def failure_log(log, name, shown):
    """The log kunit.py prints before "[FAILED] name", or before the first
    "[CRASHED] " for a case that never reported (a crash, shown once)."""
    mark = re.compile(r'\[(FAILED|CRASHED)\] ' + re.escape(name) + '$')
    for i, line in enumerate(log):
        if not mark.match(line):
            continue
        if i in shown:
            return []
        shown.add(i)
        j = i
        while j > 0 and not RESULT.match(log[j - 1]):
            j -= 1
        return log[j:i][-LOG_LINES:]
    return []


def status_of(case):
    if 'status' in case:
        return case['status']
    # A parameterised case: one result per parameter.
    sts = [status_of(c) for c in children(case)]
    if not sts or any(s not in ('PASS', 'SKIP') for s in sts):
        return 'FAIL'
    return 'PASS'


def children(group):
    return group.get('test_cases', []) + group.get('sub_groups', [])


def report(prefix, cases, log, shown, what='case'):
    for n, case in enumerate(cases, 1):
        status = status_of(case)
        # A case the kernel never got to report has no name.
        name = case['name'] or '%s %d: no result, the kernel stopped' % (what, n)
        print('R\t%s\t%s: %s' % (status, prefix, name))
        if status not in ('PASS', 'SKIP'):
            for line in failure_log(log, case['name'], shown):
                print('D\t' + line)


def main():
    results, exec_log, abs_prefix, rel_prefix = sys.argv[1:]
    with open(results) as f:
        root = json.load(f)
    log = read_log(exec_log, abs_prefix, rel_prefix)
    shown = set()
    suites = root.get('sub_groups', [])
    print('S\t%d' % len(suites))
    for suite in suites:
        report(suite['name'], children(suite), log, shown)
    # Suites the kernel never got to report.
    report('kunit', root.get('test_cases', []), log, shown, 'suite')


if __name__ == '__main__':
    main()
