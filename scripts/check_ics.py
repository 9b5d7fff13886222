#!/usr/bin/env python3
"""Parse an iCalendar file with the `icalendar` package (a real client library, not ours) and
print its events as JSON, so a test can compare them with the schedule that was exported.

Usage: python3 scripts/check_ics.py FILE.ics

Output: {"calendar": {...}, "events": [{"uid", "summary", "location", "description",
"start", "end", "allDay", "typeID", "type", "person", "personID", "shiftID"}, ...]}
Timed events have `start`/`end` as UTC ISO 8601 (`2026-03-28T18:00:00+00:00`); all-day events
have dates (`2026-03-02`) and `allDay: true`. Exit 1 (and a message on stderr) when the file
does not parse.
"""
import datetime
import json
import sys

import icalendar


def instant(value):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise SystemExit(f"floating time {value} has no time zone")
        return value.astimezone(datetime.timezone.utc).isoformat(), False
    return value.isoformat(), True


def text(component, name):
    value = component.get(name)
    return None if value is None else str(value)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: check_ics.py FILE.ics")
    with open(sys.argv[1], "rb") as handle:
        raw = handle.read()
    calendar = icalendar.Calendar.from_ical(raw)
    events = []
    for event in calendar.walk("VEVENT"):
        start, all_day = instant(event.decoded("DTSTART"))
        end, _ = instant(event.decoded("DTEND"))
        events.append({
            "uid": text(event, "UID"),
            "summary": text(event, "SUMMARY"),
            "location": text(event, "LOCATION"),
            "description": text(event, "DESCRIPTION"),
            "start": start,
            "end": end,
            "allDay": all_day,
            "shiftID": text(event, "X-SHIFTSCHEDULER-SHIFT-ID"),
            "typeID": text(event, "X-SHIFTSCHEDULER-TYPE-ID"),
            "type": text(event, "X-SHIFTSCHEDULER-TYPE"),
            "personID": text(event, "X-SHIFTSCHEDULER-PERSON-ID"),
            "person": text(event, "X-SHIFTSCHEDULER-PERSON"),
        })
    timezones = [str(tz.get("TZID")) for tz in calendar.walk("VTIMEZONE")]
    json.dump({
        "calendar": {"prodid": text(calendar, "PRODID"), "version": text(calendar, "VERSION"), "timezones": timezones},
        "events": events,
    }, sys.stdout, ensure_ascii=False, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
