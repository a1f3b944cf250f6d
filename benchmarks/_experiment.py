"""Shared machinery of the paper-reproduction scripts.

A figure is a list of panels; a panel sweeps one parameter (its points) and
compares estimators by the mean Frobenius error ‖Σ̂ − Σ‖_F over seeded
repetitions, Σ = XᵀX/n the non-private second moment of the (unit-ball) data.
The data of a point is drawn once; the repetitions vary the mechanisms' seeds,
run in parallel with joblib. Each figure is written as a markdown table, a
JSON file of the raw means and a PNG, and the papers' claims are checked
against the measured means.
"""

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _settings import in_papers_setting
from joblib import Parallel, cpu_count, delayed


def experiment_parser(description):
    """The options every reproduction script shares."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--repeats", type=int, default=50, help="releases per point (the papers: 50)"
    )
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--out", default="benchmarks/results")
    parser.add_argument(
        "--replot",
        action="store_true",
        help="redraw tables, claims and plots from the JSON of an earlier run",
    )
    return parser


def parse_arguments(parser):
    args = parser.parse_args()
    if args.repeats < 2:
        parser.error("--repeats must be at least 2 (the tables show standard errors)")
    return args


@dataclass(frozen=True)
class Point:
    """One x position of a panel: its data (built on demand) and its budget."""

    x: float
    make_data: object  # () -> X, deterministic
    budget: float
    n_features: int


@dataclass
class Panel:
    key: str
    title: str
    xlabel: str
    points: list
    log_x: bool = True
    # name -> mean/sem per point, filled by run_panel
    means: dict = field(default_factory=dict)
    sems: dict = field(default_factory=dict)


def _fit_errors(X, target, estimators, seeds, postprocess):
    """Errors of every estimator for each seed (one joblib task)."""
    errors = {name: [] for name in estimators}
    for seed in seeds:
        for name, estimator in estimators.items():
            in_papers_setting(estimator)
            if "random_state" in estimator.get_params():
                estimator.set_params(random_state=seed)
            released = postprocess(estimator.fit(X).covariance_)
            errors[name].append(float(np.linalg.norm(released - target)))
    return errors


def run_panel(panel, make_estimators, *, repeats, n_jobs, postprocess, log):
    """Fill ``panel.means`` and ``panel.sems``; estimators missing at a point
    (too slow there) get NaN."""
    n_workers = n_jobs if n_jobs > 0 else cpu_count()
    # A few tasks per worker: X is sent (memory-mapped) once per task, not per seed.
    seed_groups = [
        list(group) for group in np.array_split(np.arange(repeats), 2 * n_workers)
    ]
    seed_groups = [group for group in seed_groups if group]
    for index, point in enumerate(panel.points):
        start = time.perf_counter()
        X = point.make_data()
        target = X.T @ X / X.shape[0]
        estimators = make_estimators(point)
        runs = Parallel(n_jobs=n_jobs)(
            delayed(_fit_errors)(X, target, estimators, seeds, postprocess)
            for seeds in seed_groups
        )
        names = list(panel.means) + [n for n in estimators if n not in panel.means]
        for name in names:
            panel.means.setdefault(name, [np.nan] * len(panel.points))
            panel.sems.setdefault(name, [np.nan] * len(panel.points))
            if name in estimators:
                errors = np.concatenate([run[name] for run in runs])
                panel.means[name][index] = float(errors.mean())
                panel.sems[name][index] = float(
                    errors.std(ddof=1) / np.sqrt(errors.size) if errors.size > 1 else 0
                )
        log(
            f"  [{panel.key}] {index + 1}/{len(panel.points)} "
            f"({panel.xlabel} = {point.x:g}; X is {X.shape[0]} × {X.shape[1]}): "
            f"{repeats} repetitions of {len(estimators)} estimators "
            f"in {time.perf_counter() - start:.1f} s"
        )


def winner_rows(panel):
    """Per point: the estimators ordered by mean error."""
    rows = []
    for index, point in enumerate(panel.points):
        ranked = sorted(
            (panel.means[name][index], name)
            for name in panel.means
            if np.isfinite(panel.means[name][index])
        )
        rows.append((point.x, [name for _, name in ranked]))
    return rows


def markdown(panels, *, heading, notes, claims):
    lines = [f"# {heading}", "", *notes, ""]
    for panel in panels:
        names = list(panel.means)
        lines += [
            f"## {panel.title}",
            "",
            f"| {panel.xlabel} | " + " | ".join(names) + " | best |",
            "|---" * (len(names) + 2) + "|",
        ]
        for index, (x, ranked) in enumerate(winner_rows(panel)):
            cells = []
            for name in names:
                mean, sem = panel.means[name][index], panel.sems[name][index]
                cells.append(
                    "—" if not np.isfinite(mean) else f"{mean:.3g} ± {sem:.1g}"
                )
            lines.append(f"| {x:g} | " + " | ".join(cells) + f" | {ranked[0]} |")
        lines.append("")
    lines += ["## The papers' claims against these measurements", ""]
    lines += [
        f"* **{'agrees' if ok else 'DISAGREES'}**: {text} ({detail})"
        for text, ok, detail in claims
    ]
    return "\n".join(lines) + "\n"


def plot(panels, path, *, suptitle, styles):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    columns = 2 if len(panels) in (2, 4) else min(3, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(4.6 * columns, 3.6 * rows), squeeze=False
    )
    for ax, panel in zip(axes.flat, panels, strict=False):
        xs = [point.x for point in panel.points]
        for name, means in panel.means.items():
            ax.errorbar(
                xs, means, yerr=panel.sems[name], label=name, capsize=2, **styles(name)
            )
        if panel.log_x:
            ax.set_xscale("log")
        ax.set_yscale("log")
        # Label the decades only: minor labels on short log ranges overlap.
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(panel.xlabel)
        ax.set_ylabel("mean ‖Σ̂ − Σ‖_F")
        ax.set_title(panel.title, fontsize=10)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    legend = {}
    for ax in axes.flat[: len(panels)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    legend_rows = -(-len(legend) // 6)
    fig.legend(legend.values(), legend.keys(), loc="lower center", ncol=6)
    fig.suptitle(suptitle)
    # Leave the legend's rows free below the panels.
    fig.tight_layout(rect=(0, (0.05 + 0.045 * legend_rows) / rows, 1, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def order_columns(panels, order):
    """Put every panel's estimators in the fixed ``order`` (unknown names last)."""
    rank = {name: index for index, name in enumerate(order)}
    for panel in panels:
        names = sorted(panel.means, key=lambda name: rank.get(name, len(order)))
        panel.means = {name: panel.means[name] for name in names}
        panel.sems = {name: panel.sems[name] for name in names}


def write_outputs(panels, out_dir, stem, *, heading, notes, claims, order, log):
    order_columns(panels, order)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    text = markdown(panels, heading=heading, notes=notes, claims=claims)
    (out_dir / f"{stem}.md").write_text(text, encoding="utf-8")
    raw = {"notes": notes} | {
        panel.key: {
            "title": panel.title,
            "x": [point.x for point in panel.points],
            "means": panel.means,
            "sems": panel.sems,
        }
        for panel in panels
    }
    (out_dir / f"{stem}.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    plot(panels, out_dir / f"{stem}.png", suptitle=heading, styles=line_styles(order))
    log(text)
    log(f"wrote {out_dir / stem}.md, .json and .png")


def mean_at(panel, name, x):
    """The mean error of ``name`` at the point whose x is ``x``."""
    index = [point.x for point in panel.points].index(x)
    return panel.means[name][index]


def line_styles(order):
    """Fixed colour and marker per estimator name, so figures compare."""
    from matplotlib import colormaps

    markers = "osD^vP*Xh<>p"
    tab20 = colormaps["tab20"]

    def style(name):
        index = order.index(name) if name in order else len(order)
        # tab20: the ten dark shades first, then the ten light ones.
        return {
            "color": tab20((2 * index) % 20 + (index // 10) % 2),
            "marker": markers[index % len(markers)],
            "markersize": 4,
            "linewidth": 1.2,
            "linestyle": ":" if name == "Zero" else "-",
        }

    return style


def load_means(panels, path):
    """Refill ``panels`` from the JSON of an earlier run; return its notes."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    for panel in panels:
        panel.means = raw[panel.key]["means"]
        panel.sems = raw[panel.key]["sems"]
    return raw.get("notes", [])
