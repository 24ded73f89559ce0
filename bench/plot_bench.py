#!/usr/bin/python3
"""Draws the JSON of any `warpmatch-bench ...` program as a PNG bar chart (matplotlib).

The benchmarks write different shapes, so the rows are found generically: every list of JSON
objects anywhere in the file is a table (objects nested in a row are flattened to dotted keys;
lists nested in a row, such as bench lcs's cases[].rows, become their own table, labelled with
the parent row). The table and the number drawn are chosen by a preference list (GB/s first,
then times) unless --table / --metric say otherwise; rows without the number (skipped, failed)
are left out and counted in the subtitle. Peer rows (ripgrep, seqkit, edlib, Hyperscan, ...)
are drawn in grey.

    bench/plot_bench.py bench_e2e.json                     # -> bench_e2e.png
    bench/plot_bench.py bench_find.json --metric median_ms --log -o find.png
    bench/plot_bench.py bench_lcs.json --list               # the tables and numbers it sees

Debian: apt-get install python3-matplotlib (the script runs with /usr/bin/python3).
"""
import argparse
import json
import math
import os
import sys

# Numbers worth drawing, best first: a key equal to one of these, else one containing it (any
# other numeric key can be named with --metric).
METRIC_PREFERENCE = ["gb_per_s", "gbps", "tcups", "speedup", "wall_s", "median_ms", "total_ms", "_ms",
                     "value"]
# Numeric keys that name a row when it has no text (bench approx's m, the distance D, ...).
NUMERIC_LABEL_KEYS = ["m", "n", "k", "D", "block_size", "threads"]
# Keys whose text names a row, in the order they are joined.
LABEL_KEYS = ["job_title", "workload", "name", "case", "pattern", "label", "method", "row", "target"]
# Keys that are numbers but identifiers, not measurements.
NOT_METRICS = {"job", "ordinal", "schema_version", "repeats", "pattern", "threads", "exit_status"}
PEER_WORDS = ("ripgrep", "rg ", "seqkit", "edlib", "hyperscan", "divsufsort", "stringzilla", "zcat",
              "zstd -dc", "peer", "grep")


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def flatten(record, prefix=""):
    out = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(flatten(value, prefix + key + "."))
        elif not isinstance(value, list):
            out[prefix + key] = value
    return out


def label_of(flat, index):
    parts = []
    for key in LABEL_KEYS:
        value = flat.get(key)
        if isinstance(value, str) and value and len(value) <= 60 and not any(value in p for p in parts):
            parts.append(value)
    if not parts:  # any short text of the row, else its identifying numbers
        parts = [v for k, v in flat.items() if isinstance(v, str) and 0 < len(v) <= 40][:2]
        parts += [f"{k}={flat[k]}" for k in NUMERIC_LABEL_KEYS if is_number(flat.get(k))]
    if flat.get("backend_used") and flat.get("backend") == "auto" and "(" not in " ".join(parts):
        parts[-1:] = [f"{parts[-1]} ({flat['backend_used']})"] if parts else []
    return " / ".join(parts) if parts else f"row {index}"


def find_tables(node, path, context, tables):
    """Every list of objects under `node`: tables[path] = [(label, flat record), ...]."""
    if isinstance(node, dict):
        for key, value in node.items():
            find_tables(value, f"{path}.{key}" if path else key, context, tables)
    elif isinstance(node, list) and node and all(isinstance(x, dict) for x in node):
        rows = tables.setdefault(path, [])
        for i, item in enumerate(node):
            flat = flatten(item)
            label = label_of(flat, i)
            rows.append((f"{context} / {label}" if context else label, flat))
            for key, value in item.items():
                if isinstance(value, (list, dict)):
                    find_tables(value, f"{path}[].{key}", f"{context} / {label}" if context else label, tables)


def metrics_of(rows):
    counts = {}
    for _, flat in rows:
        for key, value in flat.items():
            if is_number(value) and key.split(".")[-1] not in NOT_METRICS:
                counts[key] = counts.get(key, 0) + 1
    return counts


def preference(key):
    """Rank of a numeric key in METRIC_PREFERENCE (exact match before containment), or None."""
    last = key.split(".")[-1]
    for i, token in enumerate(METRIC_PREFERENCE):
        if last == token:
            return 2 * i
    for i, token in enumerate(METRIC_PREFERENCE):
        if token in last:
            return 2 * i + 1
    return None


def choose(tables, table_name, metric):
    if table_name:
        if table_name not in tables:
            sys.exit(f"plot_bench: no table '{table_name}' (have: {', '.join(tables)})")
        candidates = {table_name: tables[table_name]}
    else:
        candidates = tables
    best = None  # (preference rank, -rows with the metric, table, metric)
    for name, rows in candidates.items():
        counts = metrics_of(rows)
        if metric:
            options = [metric] if metric in counts else []
        else:
            options = [m for m in counts if preference(m) is not None and counts[m] * 2 >= len(rows)]
            if not options and counts:
                options = [max(counts, key=counts.get)]
        for m in options:
            rank = preference(m) if preference(m) is not None else 99
            key = (rank, name != "rows", -counts[m], name, m)
            if best is None or key < best:
                best = key
    if best is None:
        sys.exit(f"plot_bench: no table with {'the number ' + repr(metric) if metric else 'numbers'} "
                 "(try --list)")
    return best[3], best[4]


def is_peer(label, flat):
    if flat.get("peer") is True:
        return True
    if flat.get("peer") is False:
        return False
    text = label.lower()
    return any(w in text for w in PEER_WORDS) and "warpmatch" not in text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="a JSON file written by `warpmatch-bench ... --json`")
    ap.add_argument("-o", "--output", help="PNG to write (default: the JSON's name with .png)")
    ap.add_argument("--metric", help="the number to draw (default: GB/s, TCUPS, speed-up or a time)")
    ap.add_argument("--table", help="which list of rows (see --list)")
    ap.add_argument("--log", action="store_true", help="logarithmic axis (automatic over 3 decades)")
    ap.add_argument("--linear", action="store_true", help="never a logarithmic axis")
    ap.add_argument("--list", action="store_true", help="print the tables and their numbers, draw nothing")
    args = ap.parse_args()

    with open(args.json) as f:
        data = json.load(f)
    tables = {}
    find_tables(data, "", "", tables)
    if args.list:
        for name, rows in tables.items():
            counts = metrics_of(rows)
            print(f"{name}: {len(rows)} rows; numbers: " +
                  ", ".join(f"{k} ({v})" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
        return 0
    if not tables:
        sys.exit("plot_bench: no list of rows in " + args.json)
    table, metric = choose(tables, args.table, args.metric)
    rows = tables[table]
    drawn = [(label, flat[metric], is_peer(label, flat)) for label, flat in rows
             if is_number(flat.get(metric))]
    left_out = len(rows) - len(drawn)
    if not drawn:
        sys.exit(f"plot_bench: no row of '{table}' has a number '{metric}'")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [d[0] for d in drawn]
    values = [d[1] for d in drawn]
    colors = ["#9e9e9e" if d[2] else "#1f77b4" for d in drawn]
    positive = [v for v in values if v > 0]
    log = args.log or (not args.linear and positive and len(positive) == len(values) and
                       max(positive) / min(positive) > 1000)
    height = max(3.0, 0.32 * len(drawn) + 1.6)
    width = min(22.0, 8.0 + 0.07 * max(len(label) for label in labels))
    fig, ax = plt.subplots(figsize=(width, height))
    y = list(range(len(drawn)))
    ax.barh(y, values, color=colors)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    if log:
        ax.set_xscale("log")
    if positive:  # room for the numbers written after the bars
        ax.set_xlim(right=max(positive) * (4 if log else 1.15))
    for yi, v in zip(y, values):
        ax.text(v, yi, f" {v:.4g}", va="center", fontsize=7)
    ax.set_xlabel(metric + (" (log scale)" if log else ""))
    device = data.get("device")
    device_name = device.get("name") if isinstance(device, dict) else device if isinstance(device, str) else None
    commit = str(data.get("commit", "?"))[:12]
    title = f"warpmatch-bench {data.get('benchmark', os.path.basename(args.json))}: {metric}"
    subtitle = ", ".join(x for x in [f"commit {commit}", device_name or "no GPU",
                                     (data.get("host") or {}).get("cpu_model") if isinstance(data.get("host"), dict) else None,
                                     f"table '{table}'",
                                     f"{left_out} rows without a value left out" if left_out else None] if x)
    ax.set_title(f"{title}\n{subtitle}", fontsize=10)
    ax.grid(axis="x", alpha=0.3, which="both")
    fig.tight_layout()
    out = args.output or os.path.splitext(args.json)[0] + ".png"
    fig.savefig(out, dpi=120)
    print(f"{out}: {len(drawn)} bars of '{metric}' from table '{table}'" +
          (f" ({left_out} rows without it left out)" if left_out else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
