#!/usr/bin/env python3
"""Rows of bench/estimate/steps.sh's table from one stamped log.

    steps_report.py GRAPH COMMAND LOG

LOG holds "EPOCH LINE" rows (stderr stamped on arrival); LOG.times the
start, end and load; LOG.cpu /usr/bin/time's "%U %S %M"; LOG.rc the exit
code (124: cut at the timeout); LOG.est /usr/bin/time's "%e %U %S" of
COMMAND --estimate and LOG.est.out its output.
"""
import os
import re
import sys

UNITS = {"h": 3600, "min": 60, "s": 1}
# A step's estimate names it as its bar does not always.
BAR = {
    "answer calibrations": "answer calibration",
    "per-node forecasts": "forecasts by source mass",
    "routed ceilings": "ceilings",
    "forecast": "forecast trials",
    "load": "load relationships",
    "the answer audit": "answer audit",
}


def human(text):
    """Seconds of a HumanDuration ("1 min 57 s", "8.9 s", "2 h 5 min")."""
    pairs = re.findall(r"([\d.]+) (h|min|s)\b", text)
    return sum(float(v) * UNITS[u] for v, u in pairs) if pairs else None


def go_duration(text):
    """Seconds of a Go duration ("1m15s", "850ms", "2h0m1s")."""
    total, found = 0.0, False
    for v, u in re.findall(r"([\d.]+)(h|ms|m|s|µs)", text):
        total += float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "µs": 1e-6}[u]
        found = True
    return total if found else None


ESTIMATE = re.compile(r"estimated (?:up to )?(.+?) for (.+?)(?::| \(| —|$)")
DONE = re.compile(r"^(.+?): done (?:\d+/\d+ )?in (\S+)")
COUNT = re.compile(r"^(.+?): (\d+)/(\d+) \((\d+)%\)")


def step_name(text):
    name = text.strip()
    if name.startswith("Δ2 at"):
        name = "Δ2"  # its bar is "Δ2" (serve, release) or "sensitivity" (plan)
    name = BAR.get(name, name)
    return name[4:] if name.startswith("the ") else name


def parse(log):
    lines = []
    for raw in open(log, encoding="utf-8", errors="replace"):
        ts, _, text = raw.rstrip("\n").partition(" ")
        # serve logs "time=… level=INFO msg=…": the message is the line.
        m = re.search(r'msg="?(.*?)"?(?: \w+=|$)', text)
        lines.append((float(ts), m.group(1) if m and "level=" in text else text))
    return lines


def fmt(x, spec="%.1f"):
    return spec % x if x is not None else "—"


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "—"


def main(graph, command, log):
    t0, t1, load = open(log + ".times").read().split()
    t0, t1 = float(t0), float(t1)
    cpu = None
    if os.path.exists(log + ".cpu"):
        # "Command exited with non-zero status N" may come first.
        fields = open(log + ".cpu").read().strip().split("\n")[-1].split()
        if len(fields) >= 2 and re.match(r"^[\d.]+$", fields[0]):
            cpu = float(fields[0]) + float(fields[1])
    est_run = "—"
    if os.path.exists(log + ".est"):
        # "%e %U %S" (a last line; a failed run's status line comes first)
        f = open(log + ".est").read().strip().split("\n")[-1].split()
        est_run = "%s s, %.2f CPU-s" % (f[0], float(f[1]) + float(f[2])) if len(f) == 3 else f[0] + " s"
    est_out = open(log + ".est.out", errors="replace").read() if os.path.exists(log + ".est.out") else ""
    lines = parse(log)
    for ts, text in lines:
        m = re.search(r"next=(\S+)", text)
        if "scheduler started" in text and m:
            # serve: the slot's time counts from its start.
            import datetime
            start = datetime.datetime.fromisoformat(m.group(1).replace("Z", "+00:00"))
            t0 = max(t0, start.timestamp())
    estimates, done, order = {}, {}, []
    stuck, after, last_count = {}, {}, {}
    first = None
    for ts, text in lines:
        m = ESTIMATE.search(text)
        if m and human(m.group(1)) is not None:
            name = step_name(m.group(2))
            if first is None:
                first = human(m.group(1))
            if name not in estimates:
                estimates[name] = human(m.group(1))
                order.append(name)
        m = DONE.match(text)
        if m:
            name = step_name(m.group(1))
            done[name] = (ts, go_duration(m.group(2)))
            if name not in order:
                order.append(name)
            continue
        m = COUNT.match(text)
        if m:
            name = step_name(m.group(1))
            if name in done and done[name][0] <= ts:
                after[name] = after.get(name, 0) + 1
            d, tot, pct = int(m.group(2)), int(m.group(3)), int(m.group(4))
            if pct >= 99 and d < tot:
                since = last_count.setdefault((name, d), ts)
                stuck[name] = max(stuck.get(name, 0), ts - since)
    for name in order:
        # plan's sum of its steps may come after the steps' own lines.
        if "modelled steps" in name and name in estimates:
            first = estimates[name]
    total = t1 - t0
    rc = open(log + ".rc").read().strip() if os.path.exists(log + ".rc") else ""
    cut = rc == "124" or cpu is None
    tail = ""
    if cut and lines:
        # The run's own projection at the cut: elapsed + its last ETA.
        last = [(ts, re.search(r"ETA (\S+)", text)) for ts, text in lines]
        last = [(ts, m) for ts, m in last if m and go_duration(m.group(1)) is not None]
        if last:
            ts, eta = last[-1]
            tail = " (cut; own projection %.0f s)" % (ts - t0 + go_duration(eta.group(1)))
        else:
            tail = " (cut)"
    est_first = human(est_out.split("\n")[0]) if est_out else None
    row = [graph, "**%s**%s" % (command, tail), fmt(first), fmt(total), ratio(total, first),
           "%s (%s)" % (fmt(cpu, "%.0f"), fmt(cpu / 2 if cpu else None)),
           ratio(cpu / 2 if cpu else None, first),
           "%s (said %s)" % (est_run, fmt(est_first)), load,
           fmt(max(stuck.values()) if stuck else 0), str(sum(after.values()))]
    print("| " + " | ".join(row) + " |")
    for name in order:
        e = estimates.get(name)
        d = done.get(name, (None, None))[1]
        row = [graph, "  " + name, fmt(e), fmt(d), ratio(d, e), "", "", "", "",
               fmt(stuck.get(name, 0)), str(after.get(name, 0))]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
