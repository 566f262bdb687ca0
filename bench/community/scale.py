"""Community detection at scale: graphcloak's Leiden beside networkit, igraph
and leidenalg on LFR and preferential-attachment graphs (bench/community/scale.sh).

  python scale.py table GRAPHCLOAK_BINARY GRAPH...    GRAPH: lfr:EDGES or pa:EDGES
  python scale.py peer METHOD EDGE_CSV                (one method, in its own process)

Each method runs in a process of its own, so its peak RSS is its own; time is
the detection alone (loading the graph excluded) and edges/s per core divides
by the threads the method uses. Modularity, NMI against the planted partition
and the count of disconnected communities are computed here, the same way for
every method."""
import json, os, resource, subprocess, sys, time

import numpy as np

CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".cache", "community-graphs")
THREADS = int(os.environ.get("THREADS", "2"))


def generate(spec):
    """Writes (once) the edge list CSV and planted labels of spec; returns their paths."""
    kind, edges = spec.split(":")
    edges = int(float(edges))
    os.makedirs(CACHE, exist_ok=True)
    csv, labels = os.path.join(CACHE, f"{kind}-{edges}.csv"), os.path.join(CACHE, f"{kind}-{edges}.labels")
    if os.path.exists(csv):
        return csv, (labels if os.path.exists(labels) else None)
    import networkit as nk
    nk.engineering.setSeed(1, False)
    nk.setNumberOfThreads(THREADS)
    part = None
    if kind == "lfr":  # the LFR: average degree 20, max 50, communities of 20–100, mixing 0.3
        n = edges // 10
        gen = nk.generators.LFRGenerator(n)
        gen.generatePowerlawDegreeSequence(20, 50, -2)
        gen.generatePowerlawCommunitySizeSequence(20, 100, -1)
        gen.setMu(0.3)
        gen.run()
        g, part = gen.getGraph(), gen.getPartition()
    elif kind == "pa":
        g = nk.generators.BarabasiAlbertGenerator(5, edges // 5).generate()
    else:
        sys.exit(f"unknown graph {spec}")
    g.removeSelfLoops()
    g.removeMultiEdges()
    tmp = csv + ".tmp"
    with open(tmp, "w") as f:
        f.write("source,target\n")
        src = np.empty(g.numberOfEdges(), dtype=np.int64)
        dst = np.empty_like(src)
        for k, (u, v) in enumerate(g.iterEdges()):
            src[k], dst[k] = u, v
        np.savetxt(f, np.column_stack([src, dst]), fmt="%d", delimiter=",")
    os.replace(tmp, csv)
    if part is not None:
        np.savetxt(labels, np.array(part.getVector(), dtype=np.int64), fmt="%d")
        return csv, labels
    return csv, None


def read_edges(path):
    e = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64)
    return e, int(e.max()) + 1


def peer(method, path):
    """Runs one library's detector; prints its membership file and time."""
    e, n = read_edges(path)
    if method.startswith("networkit"):
        import networkit as nk
        nk.setNumberOfThreads(THREADS)
        g = nk.Graph(n)
        for u, v in e:
            g.addEdge(int(u), int(v))
        algo = nk.community.PLM(g, refine=False) if method == "networkit-plm" else nk.community.ParallelLeiden(g)
        t0 = time.perf_counter()
        algo.run()
        secs = time.perf_counter() - t0
        member = np.array(algo.getPartition().getVector(), dtype=np.int64)
    else:
        import igraph as ig
        g = ig.Graph(n=n, edges=e.tolist())
        t0 = time.perf_counter()
        if method == "igraph-multilevel":
            member = g.community_multilevel().membership
        elif method == "igraph-leiden":
            member = g.community_leiden(objective_function="modularity", n_iterations=2).membership
        elif method == "leidenalg":
            import leidenalg as la
            member = la.find_partition(g, la.ModularityVertexPartition, seed=1).membership
        else:
            sys.exit(f"unknown method {method}")
        secs = time.perf_counter() - t0
    out = path + "." + method + ".part"
    np.savetxt(out, np.asarray(member, dtype=np.int64), fmt="%d")
    print(json.dumps({"seconds": secs, "part": out}))


def nmi(a, b):
    n = len(a)
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    joint = np.bincount(ai * (bi.max() + 1) + bi) / n
    joint = joint[joint > 0]
    pa, pb = np.bincount(ai) / n, np.bincount(bi) / n
    h = lambda p: -np.sum(p[p > 0] * np.log(p[p > 0]))
    ha, hb = h(pa), h(pb)
    # I(a;b) = H(a) + H(b) − H(a,b)
    mi = ha + hb - h(joint)
    return 1.0 if ha + hb == 0 else 2 * mi / (ha + hb)


def score(e, n, member, planted):
    import igraph as ig
    g = ig.Graph(n=n, edges=e.tolist())
    q = g.modularity(member)
    inside = e[member[e[:, 0]] == member[e[:, 1]]]
    comps = len(ig.Graph(n=n, edges=inside.tolist()).connected_components())
    k = len(np.unique(member))
    res = {"modularity": q, "communities": k, "disconnected": comps - k}
    if planted is not None:
        res["nmi"] = nmi(member, planted)
    return res


def run(cmd):
    """Runs cmd under /usr/bin/time; returns its stdout and peak RSS in bytes
    (a forked child's own ru_maxrss would start from this process's)."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return p.stdout, int(p.stderr.strip().splitlines()[-1]) * 1024


def graphcloak(binary, csv, n):
    part = csv + ".graphcloak.part"
    out, rss = run([binary, "communities", "--graph", "file:" + csv, "--concurrency", str(THREADS), "--random-seed", "1",
                    "--out", part, "-o", "json"])
    s = json.loads(out)
    member = np.full(n, -1, dtype=np.int64)
    rows = np.loadtxt(part, delimiter=",", skiprows=1, dtype=np.int64)
    member[rows[:, 0]] = rows[:, 1]
    return s["computeMillis"] / 1000, member, rss, s.get("estimatedBytes"), s.get("loadMillis")


def table(binary, specs):
    methods = ["networkit-plm", "networkit-leiden", "igraph-multilevel", "igraph-leiden", "leidenalg"]
    if os.environ.get("METHODS"):
        methods = [m for m in methods if m in os.environ["METHODS"].split(",")]
    before = os.environ.get("GRAPHCLOAK_BEFORE")  # another build, measured in the same run
    skip = {m: float(os.environ.get("MAX_EDGES_" + m.replace("-", "_").upper(), "inf")) for m in methods}
    skip["leidenalg"] = float(os.environ.get("MAX_EDGES_LEIDENALG", 2e6))
    threads = {"graphcloak": THREADS, "graphcloak-before": THREADS, "networkit-plm": THREADS, "networkit-leiden": THREADS}
    print(f"{'graph':<12} {'nodes':>9} {'edges':>10} {'method':<18} {'time s':>8} {'Medges/s/core':>13} {'Q':>7} "
          f"{'NMI':>6} {'discon.':>7} {'comms':>7} {'peak RSS':>9} {'estimate':>9}", flush=True)
    for spec in specs:
        csv, labels = generate(spec)
        e, n = read_edges(csv)
        planted = np.loadtxt(labels, dtype=np.int64) if labels else None
        m = len(e)
        rows, loads = [], []
        for name, b in [("graphcloak-before", before), ("graphcloak", binary)]:
            if b:
                secs, member, rss, est, load = graphcloak(b, csv, n)
                rows.append((name, secs, member, rss, est))
                loads.append((name, load))
        for meth in methods:
            if m > skip[meth]:
                continue
            out, rss = run([sys.executable, __file__, "peer", meth, csv])
            r = json.loads(out)
            rows.append((meth, r["seconds"], np.loadtxt(r["part"], dtype=np.int64), rss, None))
        for meth, secs, member, rss, est in rows:
            s = score(e, n, member, planted)
            rate = m / secs / threads.get(meth, 1) / 1e6
            nm = f"{s['nmi']:.3f}" if "nmi" in s else "-"
            es = f"{est / 2**20:.0f} MiB" if est else "-"
            print(f"{spec:<12} {n:>9} {m:>10} {meth:<18} {secs:>8.2f} {rate:>13.2f} {s['modularity']:>7.4f} "
                  f"{nm:>6} {s['disconnected']:>7} {s['communities']:>7} {rss / 2**20:>5.0f} MiB {es:>9}", flush=True)
        for name, load in loads:
            if load:
                print(f"{spec:<12} {name} read the edge list in {load / 1000:.2f} s ({m / load / 1000:.2f} M edges/s)", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "peer":
        peer(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
