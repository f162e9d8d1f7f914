#!/usr/bin/env python3
"""Writes news-app.jsonl and news-app-connectivity.csv: a news app's provider over two hours.

Twelve silent pushes five minutes apart (past the silent budget), a breaking-news alert at
priority 10 (the held silent push rides along), three mistakes APNs refuses (a background push at
priority 10, "content-available": "1", a 70-byte collapse ID), three score updates with one
collapse ID while the device is offline (only the newest survives), an expiration-0 alert while
offline (dropped) and an alert with content-available. Standard library only; deterministic.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = "11aa01229f15f0f0c52029d8cf8cd0aeaf2365fe4cebc4af26cd6d76b7919ef7"
TOPIC = "com.example.news"
lines = []


def add(at, headers, payload):
    lines.append(json.dumps({"at": at, "token": TOKEN, "headers": headers, "payload": payload}, separators=(",", ":"), ensure_ascii=False))


background = {"apns-push-type": "background", "apns-priority": "5", "apns-topic": TOPIC}
for k in range(12):
    add(f"2024-05-01T08:{5 * k:02d}:00Z", background, {"aps": {"content-available": 1}, "feed": "sports", "seq": k})
add("2024-05-01T09:05:00Z", {"apns-push-type": "alert", "apns-priority": "10", "apns-topic": TOPIC, "apns-collapse-id": "breaking"},
    {"aps": {"alert": {"title": "Breaking", "body": "Markets open higher"}, "sound": "default"}})
add("2024-05-01T09:10:00Z", {"apns-push-type": "background", "apns-priority": "10", "apns-topic": TOPIC}, {"aps": {"content-available": 1}})
add("2024-05-01T09:12:00Z", background, {"aps": {"content-available": "1"}})
add("2024-05-01T09:15:00Z", {"apns-push-type": "alert", "apns-topic": TOPIC, "apns-collapse-id": "x" * 70}, {"aps": {"alert": "too long a collapse id"}})
for k, minute in enumerate([20, 25, 30]):
    add(f"2024-05-01T09:{minute}:00Z",
        {"apns-push-type": "alert", "apns-priority": "10", "apns-topic": TOPIC, "apns-collapse-id": "score", "apns-expiration": "1714557600"},
        {"aps": {"alert": f"Score update {k + 1}"}})
add("2024-05-01T09:35:00Z", {"apns-push-type": "alert", "apns-priority": "10", "apns-topic": TOPIC, "apns-expiration": "0"},
    {"aps": {"alert": "Live now (one attempt)"}})
add("2024-05-01T10:00:00Z", {"apns-push-type": "alert", "apns-priority": "10", "apns-topic": TOPIC},
    {"aps": {"alert": "Evening briefing", "content-available": 1}})

with open(os.path.join(HERE, "news-app.jsonl"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(HERE, "news-app-connectivity.csv"), "w") as f:
    f.write("start,end,condition\n2024-05-01T09:18:00Z,2024-05-01T09:45:00Z,offline\n")

# tokyo-pushes.jsonl: four silent pushes and an alert for an app on the bundled Tokyo walk
# (geowake analyze --pushes puts them on one timeline with the region events).
tokyo = []
TOKYO_TOPIC = "com.example.tokyo"
for k, at in enumerate(["2018-11-29T02:40:00Z", "2018-11-29T03:10:00Z", "2018-11-29T03:12:00Z", "2018-11-29T04:00:00Z"]):
    tokyo.append(json.dumps({"at": at, "token": TOKEN, "headers": {"apns-push-type": "background", "apns-priority": "5", "apns-topic": TOKYO_TOPIC},
                             "payload": {"aps": {"content-available": 1}, "n": k}}))
tokyo.append(json.dumps({"at": "2018-11-29T05:00:00Z", "token": TOKEN, "headers": {"apns-push-type": "alert", "apns-topic": TOKYO_TOPIC},
                         "payload": {"aps": {"alert": "Welcome to Shibuya"}}}))
with open(os.path.join(HERE, "tokyo-pushes.jsonl"), "w") as f:
    f.write("\n".join(tokyo) + "\n")
