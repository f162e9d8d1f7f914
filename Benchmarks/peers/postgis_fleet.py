"""The PostGIS way of live geofencing, as server teams write it (../shared/LIVE.md), for
Benchmarks/serve-bench to run beside `geowake serve` on the same fixes and fences.

A private PostgreSQL cluster (Debian's postgresql-15 and postgresql-15-postgis-3) in the work
folder, durable as geowake serve is (fsync on, synchronous_commit on). Fences in a table with a
GiST index: circles as a centre (geography) and a radius with the index on the circle's box
(ST_DWithin with a per-row radius alone scans every fence), polygons as geometry in degrees
(ST_Intersects, planar: PostGIS's usual shortcut). Each batch is one transaction: the fixes
copied into a temporary table, every fence containing each fix found, compared with the device's
previous set (a table `inside`), and the enters and exits inserted into an `events` table (the
outbox a consumer would read) while `inside` is brought up to date.

What it does not do that geowake serve does: no crossing between fixes (a pass-through is missed),
no time order or reorder window, no retry identity, no dwell; so its events per fix differ.
"""
import grp, os, pwd, shutil, socket, subprocess

BIN = "/usr/lib/postgresql/15/bin"
PACKAGES = ["postgresql-15", "postgresql-15-postgis-3"]


def available():
    """Why the peer cannot run here, or None."""
    if not os.path.exists(os.path.join(BIN, "postgres")):
        return f"PostgreSQL 15 is not installed ({' '.join(PACKAGES)}: apt-get install -y {' '.join(PACKAGES)})"
    if not os.path.exists("/usr/share/postgresql/15/extension/postgis.control"):
        return f"PostGIS is not installed (apt-get install -y {PACKAGES[1]})"
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "psycopg2 is missing (pip install psycopg2-binary)"
    return None


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Cluster:
    """A PostgreSQL cluster of its own in `folder`, on a Unix socket there and a loopback port."""

    def __init__(self, folder):
        self.folder = folder
        self.data = os.path.join(folder, "pgdata")
        self.port = _free_port()
        os.makedirs(folder, exist_ok=True)
        # PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
        self.user = None
        if os.geteuid() == 0:
            self.user = "postgres"
            uid, gid = pwd.getpwnam("postgres").pw_uid, grp.getgrnam("postgres").gr_gid
            os.chown(folder, uid, gid)
        self._run([os.path.join(BIN, "initdb"), "-D", self.data, "-A", "trust", "-U", "bench", "--no-sync"])
        self._run([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-l", os.path.join(folder, "pg.log"), "-w", "-o",
                   f"-p {self.port} -k {folder} -c listen_addresses='' -c fsync=on -c synchronous_commit=on "
                   f"-c shared_buffers=512MB -c max_wal_size=4GB", "start"])

    def _run(self, args):
        if self.user: args = ["runuser", "-u", self.user, "--"] + args
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)

    def connect(self):
        import psycopg2
        return psycopg2.connect(host=self.folder, port=self.port, user="bench", dbname="postgres")

    def postmaster(self):
        with open(os.path.join(self.data, "postmaster.pid")) as f: return int(f.readline())

    def pids(self):
        """The postmaster and its children (the backends, the WAL writer, ...)."""
        top = self.postmaster()
        out = [top]
        for name in os.listdir("/proc"):
            if not name.isdigit(): continue
            try:
                with open(f"/proc/{name}/stat") as f: ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if ppid == top: out.append(int(name))
        return out

    def stop(self):
        try: self._run([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w", "stop"])
        except subprocess.CalledProcessError: pass
        shutil.rmtree(self.folder, ignore_errors=True)


def load(conn, kind, path):
    """Creates the tables and loads the fences of a serve-bench regions file."""
    import json
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    cur.execute("DROP TABLE IF EXISTS fences, inside, events")
    cur.execute("CREATE TABLE inside(device text, fence text, PRIMARY KEY (device, fence))")
    cur.execute("CREATE TABLE events(seq bigserial PRIMARY KEY, device text NOT NULL, fence text NOT NULL, kind text NOT NULL, time bigint NOT NULL)")
    if kind == "circles":
        cur.execute("CREATE TABLE fences(id text PRIMARY KEY, center geography(Point, 4326), radius float8, box geometry(Polygon, 4326))")
        rows = []
        with open(path) as f:
            next(f)
            for line in f:
                i, lat, lon, r = line.strip().split(",")
                rows.append(f"{i}\t{lon}\t{lat}\t{r}\n")
        cur.execute("CREATE TEMP TABLE raw(id text, lon float8, lat float8, radius float8)")
        import io
        cur.copy_from(io.StringIO("".join(rows)), "raw")
        # The box: the circle's extent in degrees, widened by 1 % for the sphere/ellipsoid gap.
        cur.execute("""INSERT INTO fences SELECT id, ST_MakePoint(lon, lat)::geography, radius,
            ST_Expand(ST_SetSRID(ST_MakePoint(lon, lat), 4326), 1.01 * radius / 111320.0 / cos(radians(lat)))
            FROM raw""")
        cur.execute("CREATE INDEX fences_box ON fences USING gist(box)")
    else:
        cur.execute("CREATE TABLE fences(id text PRIMARY KEY, geom geometry(Polygon, 4326))")
        with open(path) as f: collection = json.load(f)
        import io
        rows = "".join(f"{x['properties']['id']}\t{json.dumps(x['geometry'])}\n" for x in collection["features"])
        cur.execute("CREATE TEMP TABLE raw(id text, g text)")
        cur.copy_from(io.StringIO(rows), "raw")
        cur.execute("INSERT INTO fences SELECT id, ST_SetSRID(ST_GeomFromGeoJSON(g), 4326) FROM raw")
        cur.execute("CREATE INDEX fences_geom ON fences USING gist(geom)")
    cur.execute("ANALYZE fences")
    conn.commit()


def containing(kind):
    """The join from a batch's fixes to the fences that contain them."""
    point = "ST_SetSRID(ST_MakePoint(b.lon, b.lat), 4326)"
    if kind == "circles":
        return f"JOIN fences f ON f.box && {point} AND ST_DWithin(f.center, {point}::geography, f.radius, false)"
    return f"JOIN fences f ON ST_Intersects(f.geom, {point})"


class Client:
    """One connection posting batches: each a transaction, answered once committed."""

    def __init__(self, cluster, kind):
        self.conn = cluster.connect()
        cur = self.conn.cursor()
        cur.execute("CREATE TEMP TABLE batch(device text, time bigint, lat float8, lon float8) ON COMMIT DELETE ROWS")
        self.conn.commit()
        # A batch holds one fix per device (serve-bench's rounds), so the device's new set is the
        # fences of that fix.
        self.statement = f"""
            WITH now AS (SELECT b.device, f.id AS fence, b.time FROM batch b {containing(kind)}),
            before AS (SELECT i.device, i.fence FROM inside i JOIN batch b ON b.device = i.device),
            enters AS (SELECT n.device, n.fence, n.time FROM now n
                       WHERE NOT EXISTS (SELECT 1 FROM before p WHERE p.device = n.device AND p.fence = n.fence)),
            exits AS (SELECT p.device, p.fence, b.time FROM before p JOIN batch b ON b.device = p.device
                      WHERE NOT EXISTS (SELECT 1 FROM now n WHERE n.device = p.device AND n.fence = p.fence)),
            gone AS (DELETE FROM inside i USING exits e WHERE i.device = e.device AND i.fence = e.fence),
            came AS (INSERT INTO inside SELECT device, fence FROM enters),
            out AS (INSERT INTO events(device, fence, kind, time)
                    SELECT device, fence, 'enter', time FROM enters UNION ALL SELECT device, fence, 'exit', time FROM exits
                    RETURNING 1)
            SELECT count(*) FROM out"""

    def post(self, rows):
        """Uses a batch of (device, time, lat, lon); returns the events it made."""
        import io
        cur = self.conn.cursor()
        cur.copy_from(io.StringIO("".join(f"{d}\t{t}\t{lat}\t{lon}\n" for d, t, lat, lon in rows)), "batch")
        cur.execute(self.statement)
        events = cur.fetchone()[0]
        self.conn.commit()
        return events

    def close(self):
        self.conn.close()


def cpu_seconds(cluster):
    """User and system CPU time of the cluster's processes (the ones alive now)."""
    total = 0.0
    for pid in cluster.pids():
        try:
            with open(f"/proc/{pid}/stat") as f: fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total

