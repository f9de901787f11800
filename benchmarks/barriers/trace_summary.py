#!/usr/bin/env python3
"""Summarises a ledger trace (COZ_LEDGER_TRACE=FILE, libcoz/runtime/ledger_trace.h): where the
delays of one experiment went.

Per thread: its own selected-line samples (settles that added own speedup), its pauses (count,
asked, slept), the credits its wakes gave it, and what it owed as it blocked. Then, over the
experiment: the global total inserted; the time some thread paused while every other thread was
blocked (a pause on the critical path: the others wait for it at their meeting); and pauses that
came at a thread's first settle after a wake, with what the thread owed as it blocked.
Usage: trace_summary.py TRACE [TRACE...]
"""
import collections
import sys


def summarise(path):
    begin = end = None
    threads = collections.defaultdict(lambda: collections.Counter())
    pauses = []  # (start, stop, thread)
    blocked = collections.defaultdict(list)  # thread -> [(start, stop)]
    open_block = {}
    inserted = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            t, thread, event, a, b, c, d = line.split()
            t, a, b, c, d = int(t), int(a), int(b), int(c), int(d)
            if event == "begin":
                begin = t
                continue
            if event == "end":
                end, inserted = t, a
                continue
            s = threads[thread]
            if event == "settle" and a > 0:
                s["own samples"] += 1
                s["own ns"] += a
            elif event == "pause":
                s["pauses"] += 1
                s["asked ns"] += a
                s["slept ns"] += b
                pauses.append((t - b, t, thread))
            elif event == "credit":
                s["credits"] += 1
                s["credited ns"] += c - b
            elif event == "block":
                s["blocks"] += 1
                s["owed at block ns"] += a
                open_block[thread] = t
            elif event == "wake":
                if thread in open_block:
                    blocked[thread].append((open_block.pop(thread), t))
    if begin is None:
        print(f"{path}: no experiment")
        return
    end = end or max(p[1] for p in pauses)
    print(f"{path}: experiment of {(end - begin) / 1e6:.1f} ms, global total {inserted / 1e6:.1f} ms")
    for thread in sorted(threads):
        s = threads[thread]
        print(f"  thread {thread}: {s['own samples']} own samples ({s['own ns'] / 1e6:.1f} ms), "
              f"{s['pauses']} pauses ({s['asked ns'] / 1e6:.1f} ms asked, {s['slept ns'] / 1e6:.1f} slept), "
              f"{s['credits']} credits ({s['credited ns'] / 1e6:.1f} ms), {s['blocks']} blocks "
              f"(owing {s['owed at block ns'] / 1e6:.1f} ms as they began)")

    def blocked_at(thread, t):
        return any(a <= t <= b for a, b in blocked[thread])

    critical = 0
    for start, stop, thread in pauses:
        mid = (start + stop) // 2
        others = [o for o in threads if o != thread and o != "0"]
        if others and all(blocked_at(o, mid) for o in others):
            critical += stop - start
    total = sum(stop - start for start, stop, _ in pauses)
    print(f"  pauses: {total / 1e6:.1f} ms in all; {critical / 1e6:.1f} ms of them while every other "
          f"thread was blocked (on the critical path)")


for path in sys.argv[1:]:
    summarise(path)
