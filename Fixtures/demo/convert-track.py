#!/usr/bin/env python3
"""Turns the bundled Open GPX Tracker recording (Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx)
into the CSV track the demo reads, until GeoWake reads GPX itself. Standard library only.

Run from the package root: python3 Fixtures/demo/convert-track.py > Fixtures/demo/tokyo-track.csv
"""
import re
import sys

gpx = open("Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx", encoding="utf-8").read()
point = re.compile(r'<trkpt lat="([^"]+)" lon="([^"]+)">.*?<time>([^<]+)</time>', re.S)
sys.stdout.write("# from Fixtures/gpx/coregpx/GPXTest-TrackPointOnly.gpx (CoreGPX test data, MIT)\n")
sys.stdout.write("time,lat,lon\n")
for lat, lon, time in point.findall(gpx):
    sys.stdout.write("%s,%s,%s\n" % (time, lat, lon))
