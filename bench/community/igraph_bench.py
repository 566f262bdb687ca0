"""igraph's multilevel (Louvain) and Leiden on an edge list, timed; the
peer side of bench/community/run.sh."""
import json, sys, time
import igraph as ig

edges_path, n, labels_path, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
es, ws = [], []
with open(edges_path) as f:
    for line in f:
        a, b, w = line.split()
        es.append((int(a), int(b)))
        ws.append(float(w))
g = ig.Graph(n=n, edges=es)
g.es["weight"] = ws
truth = None
if labels_path != "-":
    with open(labels_path) as f:
        truth = [l.strip() for l in f]
out = {}
for name, run in [("multilevel", lambda: g.community_multilevel(weights="weight")),
                  ("leiden", lambda: g.community_leiden(objective_function="modularity", weights="weight", n_iterations=2))]:
    best, part = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        part = run()
        best = min(best, time.perf_counter() - t0)
    r = {"seconds": best, "modularity": g.modularity(part.membership, weights="weight"), "communities": len(part)}
    if truth:
        ids = {s: i for i, s in enumerate(dict.fromkeys(truth))}
        r["nmi"] = ig.compare_communities(part.membership, [ids[s] for s in truth], method="nmi")
    out[name] = r
print(json.dumps(out))
