"""Print the utility table (markdown) from bench/utility's JSON lines."""
import json
import sys


def pct(x):
    return f"{100 * x:.1f}%"


def main():
    print("| graph | k (chance) | τ | ε | per-node: forecast [95%] / measured | private answer: forecast [95%] / measured (mechanism) | ceiling | best ÷ ceiling | best ÷ chance |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        for line in open(path):
            r = json.loads(line)
            a = r["answer"]
            k, chance = a["communityCount"], a["chance"]
            pn = "—"
            best = a["communityAccuracy"]
            if r.get("perNode"):
                p = r["perNode"]
                m = r.get("measuredPerNode")
                pn = f'{pct(p["communityAccuracy"])} [{pct(p["low"])}, {pct(p["high"])}]'
                if m:
                    pn += f' / {pct(m["communityAccuracy"])}'
                # locate's verdict on such a release is the forecast's (100
                # trials, as locate's default): flagged when at chance.
                pn += " (at chance) · flagged" if p["atChance"] else " · not flagged"
                best = max(best, p["communityAccuracy"])
            ma = r.get("measuredAnswer")
            an = f'{pct(a["communityAccuracy"])} [{pct(a["low"])}, {pct(a["high"])}]'
            if ma:
                an += f' / {pct(ma.get("realizedRate", 0))}'
            if a.get("mechanism"):
                an += f' ({a["mechanism"].removeprefix("community-")})'
            ceil = r["ceiling"]
            print(f'| {r["graph"]} | {k} ({pct(chance)}) | {r["tau"]:g} | {r["epsilon"]:g} | {pn} | {an} | {pct(ceil)} | {best / ceil:.2f} | {best / chance:.0f}× |')


if __name__ == "__main__":
    main()
