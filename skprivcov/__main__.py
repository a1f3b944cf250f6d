"""Command line: ``python -m skprivcov demo``."""

import argparse
import sys

from skprivcov._demo import run_demo


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="skprivcov", description="Differentially private covariance release."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="compare every mechanism on a bundled dataset"
    )
    demo.add_argument(
        "--repeats", type=int, default=5, help="seeds averaged per cell (default 5)"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    run_demo(n_repeats=args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
