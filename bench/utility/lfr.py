"""Generate an LFR benchmark graph (networkit's LFRGenerator) with planted communities.

    python lfr.py N MU SEED EDGES_CSV COMMUNITIES_CSV [AVG_DEG MAX_DEG]

Degrees follow a power law (exponent 2.5, mean AVG_DEG, max MAX_DEG: defaults 15/300 at 2·10⁴ nodes,
20/500 above), community sizes a power law (exponent 1.5) between 20 and 200 nodes; MU is the mixing
parameter (the fraction of each node's edges that leave its community). Above 5·10⁴ nodes the
largest community has 600 nodes; in every case at least the largest internal degree + 2, so that a
hub's internal degree fits in it. Nodes are named n0 … n{N−1}.
"""
import sys

import networkit as nk

ATTEMPTS = 20


def main():
    n, mu, seed = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    edges_path, comm_path = sys.argv[4], sys.argv[5]
    avg, mx = (15, 300) if n <= 50000 else (20, 500)
    if len(sys.argv) > 7:
        avg, mx = float(sys.argv[6]), int(sys.argv[7])
    # The largest community must hold the largest internal degree.
    biggest = max(200 if n <= 50000 else 600, int(mx * (1 - mu)) + 2)
    # A draw of degrees and community sizes can be unrealizable (a hub's internal degree above every
    # drawn community's size); draw again from a seed derived from SEED. Seeds that realize on the
    # first draw give the same graph as before.
    for attempt in range(ATTEMPTS):
        nk.setSeed(seed + 7919 * attempt, False)
        nk.setNumberOfThreads(1)
        gen = nk.generators.LFRGenerator(n)
        gen.generatePowerlawDegreeSequence(avg, mx, -2.5)
        gen.generatePowerlawCommunitySizeSequence(20, biggest, -1.5)
        gen.setMu(mu)
        try:
            gen.run()
            break
        except RuntimeError as e:
            if "not realizable" not in str(e) or attempt == ATTEMPTS - 1:
                raise SystemExit(f"lfr.py: n={n} mu={mu} seed={seed}: {e} ({attempt + 1} draws)")
            print(f"lfr.py: draw {attempt + 1} not realizable ({e}); drawing again", file=sys.stderr)
    g = gen.getGraph()
    part = gen.getPartition()
    with open(edges_path, "w") as f:
        f.write("source,target\n")
        for u, v in g.iterEdges():
            f.write(f"n{u},n{v}\n")
    with open(comm_path, "w") as f:
        f.write("node,community\n")
        for u in range(n):
            f.write(f"n{u},{part[u]}\n")
    print(f"lfr n={n} mu={mu} edges={g.numberOfEdges()} communities={part.numberOfSubsets()}", file=sys.stderr)


if __name__ == "__main__":
    main()
