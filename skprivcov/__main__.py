"""Command line: ``python -m skprivcov demo`` and ``python -m skprivcov release``."""

import argparse
import os
import sys

from skprivcov._demo import plot_demo, run_demo
from skprivcov._release_command import ReleaseError, add_release_arguments, run_release


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="skprivcov", description="Differentially private covariance release."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="compare every mechanism on a bundled dataset"
    )
    demo.add_argument(
        "--repeats", type=int, default=3, help="seeds averaged per cell (default 3)"
    )
    demo.add_argument(
        "--plot",
        default="skprivcov_demo.png",
        metavar="PATH",
        help="PNG of error against budget (default skprivcov_demo.png; needs "
        "matplotlib, the 'plot' extra)",
    )
    demo.add_argument("--no-plot", action="store_true", help="print the table only")
    release = commands.add_parser(
        "release",
        help="release a private covariance of a CSV or NPY file",
        description="Release a private covariance of the rows of a CSV or NPY "
        "file, with a JSON record of the privacy spent (never the seed).",
    )
    add_release_arguments(release)
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo(parser, args)
    try:
        estimator, output, record = run_release(args)
    except ReleaseError as error:
        print(f"skprivcov release: error: {error}", file=sys.stderr)
        return 2
    d = estimator.covariance_.shape[0]
    print(
        f"released a {d} x {d} covariance ({estimator.privacy_spent_}) to {output}; "
        f"record in {record}"
    )
    return 0


def _demo(parser, args):
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if not args.no_plot:
        if not args.plot.lower().endswith(".png"):
            parser.error(f"--plot must name a .png file, got {args.plot!r}")
        # Refuse a path that cannot be written before the demo runs.
        folder = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(folder):
            parser.error(f"--plot: directory {folder!r} does not exist")
    rows = run_demo(n_repeats=args.repeats)
    if args.no_plot:
        return 0
    try:
        plot_demo(rows, args.plot)
    except ImportError:
        print(
            "no plot: matplotlib is not installed "
            "(pip install 'skprivcov[plot]' to write one)"
        )
    except OSError as error:
        print(
            f"skprivcov demo: error: cannot write {args.plot}: {error}", file=sys.stderr
        )
        return 2
    else:
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
