#!/usr/bin/env python3
# cron-reference.py: prints the reference table of next-fire times that
# tests/unit/test-cron.c checks cron_next() against.  It shares no code or
# method with src/sched/cron.c: its own field parser, Python's zoneinfo for
# the zone rules, and a plain minute-by-minute walk over wall clock readings
# (each matching reading turned into instants by the documented DST rule,
# cronie's: a job whose minute or hour field starts with "*" fires at every
# occurrence of a reading and never for a skipped one; any other job fires
# a repeated reading at its first occurrence, a skipped one at the first
# wall minute that exists after it).  Run it and paste its output
# into test-cron.c's table:  python3 tests/unit/cron-reference.py
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
DAYS = "sun mon tue wed thu fri sat".split()
MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *",
          "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
          "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *",
          "@annually": "0 0 1 1 *"}


def value(s, names, base):
    if s.isdigit():
        return int(s)
    return names.index(s.lower()[:3]) + base


def field(text, lo, hi, names=None, base=0):
    out = set()
    for item in text.split(","):
        rng, _, step = item.partition("/")
        step = int(step) if step else 1
        if rng == "*":
            a, b = lo, hi
        elif "-" in rng:
            a, b = (value(x, names, base) for x in rng.split("-"))
            if names is DAYS and b == 0:
                b = 7
        else:
            a = value(rng, names, base)
            b = hi if step > 1 or "/" in item else a
        out.update(range(a, b + 1, step))
    return out


def parse(expr):
    expr = MACROS.get(expr, expr)
    f = expr.split()
    dow = {d % 7 for d in field(f[4], 0, 7, DAYS, 0)}
    return (field(f[0], 0, 59), field(f[1], 0, 23), field(f[2], 1, 31),
            field(f[3], 1, 12, MONTHS, 1), dow,
            f[2].startswith("*") or f[4].startswith("*"),
            f[0].startswith("*") or f[1].startswith("*"))


def matches(c, w):
    mins, hours, doms, months, dows, star, wild = c
    if w.minute not in mins or w.hour not in hours or w.month not in months:
        return False
    dom = w.day in doms
    dow = (w.isoweekday() % 7) in dows
    return (dom and dow) if star else (dom or dow)


def exists(w, z):
    back = w.replace(tzinfo=z).astimezone(timezone.utc).astimezone(z)
    return back.replace(tzinfo=None) == w


def instants(w, z, wild):
    if exists(w, z):
        both = sorted({int(w.replace(tzinfo=z, fold=0).timestamp()),
                       int(w.replace(tzinfo=z, fold=1).timestamp())})
        return both if wild else both[:1]
    if wild:
        return []
    while not exists(w, z):
        w += timedelta(minutes=1)
    return [int(w.replace(tzinfo=z).timestamp())]


def next_fire(expr, after, zone):
    z = ZoneInfo(zone)
    c = parse(expr)
    w = datetime.fromtimestamp(after, z).replace(tzinfo=None, second=0)
    w -= timedelta(hours=3)
    end = w + timedelta(days=5 * 365 + 1)
    best = None
    while w < end:
        if matches(c, w):
            ts = instants(w, z, c[6])
            for t in ts:
                if t > after and (best is None or t < best):
                    best = t
            if best is not None and ts and ts[0] > best + 3 * 3600:
                break
        if best is not None and (w - timedelta(days=1)).replace(
                tzinfo=z).timestamp() > best:
            break
        w += timedelta(minutes=1)
    return -1 if best is None else best


def at(zone, text):
    w = datetime.strptime(text, "%Y-%m-%d %H:%M")
    return int(w.replace(tzinfo=ZoneInfo(zone)).timestamp())


CASES = [
    # zone, expression, start (local, first occurrence), firings to chain
    ("UTC", "*/15 * * * *", "2026-03-01 10:07", 3),
    ("UTC", "0 9 * * mon-fri", "2026-03-06 10:00", 3),
    ("UTC", "0 0 1,15 * fri", "2026-03-01 00:00", 4),
    ("UTC", "0 0 */10 * *", "2026-01-25 12:00", 4),
    ("UTC", "0 0 */10 * 1", "2026-01-01 12:00", 3),
    ("UTC", "30 23 31 12 *", "2026-06-01 00:00", 2),
    ("UTC", "0 0 29 2 *", "2026-03-01 00:00", 2),
    ("UTC", "0 0 30 2 *", "2026-03-01 00:00", 1),
    ("UTC", "0 0 31 * *", "2026-01-31 00:00", 3),
    ("UTC", "5-10/2 4 * * *", "2026-05-05 04:06", 4),
    ("UTC", "0 12 * jan,jul sun", "2026-01-30 00:00", 3),
    ("UTC", "0 22 * * 0,7", "2026-04-01 00:00", 2),
    ("UTC", "0 0 * * fri-sun", "2026-04-01 00:00", 4),
    ("UTC", "7 7 7 7 7", "2026-01-01 00:00", 2),
    ("UTC", "@weekly", "2026-04-01 00:00", 2),
    ("UTC", "@monthly", "2026-12-15 00:00", 2),
    ("UTC", "@yearly", "2026-12-15 00:00", 2),
    ("America/New_York", "*/15 2 * * *", "2026-03-07 23:00", 3),
    ("America/New_York", "30 2 * * *", "2026-03-07 12:00", 3),
    ("America/New_York", "0 3 * * *", "2026-03-07 12:00", 2),
    ("America/New_York", "@hourly", "2026-03-08 00:30", 4),
    ("America/New_York", "*/20 * * * *", "2026-03-08 01:30", 4),
    ("America/New_York", "30 1 * * *", "2026-10-31 12:00", 3),
    ("America/New_York", "*/20 * * * *", "2026-11-01 00:50", 6),
    ("America/New_York", "@hourly", "2026-11-01 00:30", 4),
    ("America/New_York", "0 2 * * *", "2026-10-31 12:00", 2),
    ("America/New_York", "0 9 * * mon-fri", "2026-03-06 10:00", 2),
    ("Europe/Berlin", "30 2 * * *", "2026-03-28 12:00", 3),
    ("Europe/Berlin", "*/30 * * * *", "2026-03-29 01:00", 4),
    ("Europe/Berlin", "0 2 * * sun", "2026-03-22 12:00", 3),
    ("Europe/Berlin", "30 2 * * *", "2026-10-24 12:00", 3),
    ("Europe/Berlin", "*/30 * * * *", "2026-10-25 01:00", 5),
    ("Europe/Berlin", "@daily", "2026-10-24 12:00", 3),
    ("Europe/Berlin", "0 0 1 * 1", "2026-05-30 00:00", 4),
    ("Australia/Lord_Howe", "15 2 * * *", "2026-10-03 12:00", 3),
    ("Australia/Lord_Howe", "*/10 * * * *", "2026-10-04 01:50", 4),
    ("Australia/Lord_Howe", "45 1 * * *", "2026-04-04 12:00", 3),
    ("Australia/Lord_Howe", "*/15 * * * *", "2026-04-05 01:20", 6),
    ("Australia/Lord_Howe", "0 2 * * *", "2026-04-04 12:00", 2),
]

if __name__ == "__main__":
    for zone, expr, start, count in CASES:
        after = at(zone, start)
        for _ in range(count):
            t = next_fire(expr, after, zone)
            if t == -1:
                shown = "none within 5 years"
            else:
                d = datetime.fromtimestamp(t, ZoneInfo(zone))
                shown = d.strftime("%Y-%m-%d %H:%M %z")
            print('\t/* %s */' % shown)
            print('\t{ "%s", "%s", %d, %d },' % (zone, expr, after, t))
            if t == -1:
                break
            after = t
