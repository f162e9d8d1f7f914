"""Run ``geowake analyze`` (or ``crossings``) over fixes held in Dask, one process per partition.

The fixes of many devices are read with Dask (``dd.read_csv`` / ``dd.read_parquet``, so that
object-store paths work through fsspec), shuffled so that each device's fixes land in one
partition, sorted there by device, time and original order, and piped as CSV through one
``geowake`` process per partition on standard input. The regions are loaded once per partition,
not once per device. The events come back as a DataFrame with the JSON Lines columns of
``geowake analyze --format jsonl`` plus ``device`` and ``sequence`` (the event's place in its
device's timeline) and ``line``, the JSON text exactly as ``geowake`` wrote it.

Each device is analysed exactly as one local ``geowake analyze`` over the same fixes would
analyse it: a device's draws are seeded from ``--seed`` and its name only, so partitioning does
not change them.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

import pandas as pd

__all__ = ["EVENT_COLUMNS", "analyze", "analyze_partitions", "run_partition"]

#: The columns of the events DataFrame, in order.
EVENT_COLUMNS = [
    "device", "sequence", "event", "region", "crossedAt", "at", "deliveredAt", "lat", "lon", "state", "reason",
    "fromFix", "toFix", "fromCell", "toCell", "line",
]

_SEQUENCE = "_geowake_row"


def _meta() -> pd.DataFrame:
    frame = pd.DataFrame({c: pd.Series(dtype="object") for c in EVENT_COLUMNS})
    frame["sequence"] = frame["sequence"].astype("int64")
    frame["lat"] = frame["lat"].astype("float64")
    frame["lon"] = frame["lon"].astype("float64")
    return frame


def _number_rows(frame: pd.DataFrame, partition_info=None) -> pd.DataFrame:
    """Adds the row's place in the input (partition, row): the shuffle loses row order."""
    number = (partition_info or {}).get("number", 0)
    frame = frame.copy()
    frame[_SEQUENCE] = (number << 40) + pd.RangeIndex(len(frame)).to_numpy()
    return frame


def _sort_key(column: pd.Series) -> pd.Series:
    if pd.api.types.is_numeric_dtype(column):
        return column
    return pd.to_datetime(column, utc=True, format="ISO8601")


def run_partition(
    frame: pd.DataFrame, *, regions: bytes, regions_suffix: str, geowake: str, command: str, args: list[str],
    columns: dict[str, str],
) -> pd.DataFrame:
    """Runs one ``geowake`` process over one partition's fixes and returns its events.

    A device that ``geowake`` reports as failed (a bad value in its fixes) gives one row with
    ``event`` ``deviceFailed`` and the message as ``reason``; the other devices are unaffected.
    Any other failure of the process raises ``RuntimeError`` with its standard error.
    """
    if len(frame) == 0:
        return _meta()
    device, time = columns["device"], columns["time"]
    order = frame.assign(_key=_sort_key(frame[time])).sort_values([device, "_key", _SEQUENCE], kind="stable")
    wanted = [device, time, columns["lat"], columns["lon"]] + ([columns["accuracy"]] if columns["accuracy"] in frame else [])
    csv = order[wanted].rename(columns={v: k for k, v in columns.items()}).to_csv(index=False)
    with tempfile.TemporaryDirectory(prefix="geowake-dask-") as folder:
        region_path = os.path.join(folder, "regions" + regions_suffix)
        with open(region_path, "wb") as f:
            f.write(regions)
        done = subprocess.run(
            [geowake, command, "--regions", region_path, "--format", "jsonl", "--jobs", "1", *args, "-"],
            input=csv.encode(), capture_output=True, check=False,
        )
    if done.returncode not in (0, 65):
        raise RuntimeError(f"geowake exited with {done.returncode}: {done.stderr.decode(errors='replace')}")
    rows = []
    counts: dict[str, int] = {}
    for line in done.stdout.decode().splitlines():
        event = json.loads(line)
        name = event["device"]
        counts[name] = counts.get(name, 0) + 1
        rows.append({**{c: event.get(c) for c in EVENT_COLUMNS}, "sequence": counts[name] - 1, "line": line})
    if done.returncode == 65:
        for message in done.stderr.decode(errors="replace").splitlines():
            marker = "(device "
            if marker in message and message.endswith(" left out)"):
                name = message[message.rindex(marker) + len(marker):-len(" left out)")]
                rows.append({c: None for c in EVENT_COLUMNS} | {"device": name, "sequence": -1, "event": "deviceFailed", "reason": message})
    if not rows:
        return _meta()
    result = pd.DataFrame(rows, columns=EVENT_COLUMNS)
    result["sequence"] = result["sequence"].astype("int64")
    result["lat"] = result["lat"].astype("float64")
    result["lon"] = result["lon"].astype("float64")
    return result


def analyze_partitions(
    fixes, regions: str, *, geowake: str = "geowake", command: str = "analyze", args: list[str] | None = None,
    npartitions: int | None = None, device: str = "device", time: str = "time", lat: str = "lat", lon: str = "lon",
    accuracy: str = "accuracy",
):
    """The events as a lazy Dask DataFrame, one partition per partition of devices, each sorted by
    device and sequence (partitions are not in device order; see :func:`analyze`).

    ``fixes`` is a Dask DataFrame or a path or glob that ``dd.read_csv`` reads (``s3://…`` and the
    like through fsspec). ``regions`` is a regions file on the client: its bytes travel with the
    task graph, so workers need not see it. ``geowake`` is the path of the binary *on the
    workers* (it must be installed there: a container image, a shared folder, or ``PATH``).
    """
    import dask.dataframe as dd

    if isinstance(fixes, str):
        fixes = dd.read_csv(fixes)
    with open(regions, "rb") as f:
        region_bytes = f.read()
    suffix = os.path.splitext(regions)[1] or ".csv"
    columns = {"device": device, "time": time, "lat": lat, "lon": lon, "accuracy": accuracy}
    numbered = fixes.map_partitions(_number_rows, meta=fixes._meta.assign(**{_SEQUENCE: pd.Series(dtype="int64")}))
    grouped = numbered.shuffle(on=device, npartitions=npartitions or fixes.npartitions)
    return grouped.map_partitions(
        run_partition, regions=region_bytes, regions_suffix=suffix, geowake=geowake, command=command,
        args=list(args or []), columns=columns, meta=_meta(),
    )


def analyze(fixes, regions: str, **options) -> pd.DataFrame:
    """The events of every device, computed and merged in (device, sequence) order.

    Takes the arguments of :func:`analyze_partitions`. Devices that failed have one row with
    ``event == "deviceFailed"`` and ``sequence == -1``, first among their rows.
    """
    events = analyze_partitions(fixes, regions, **options).compute()
    return events.sort_values(["device", "sequence"], kind="stable").reset_index(drop=True)
