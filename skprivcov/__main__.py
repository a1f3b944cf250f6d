"""Command line: ``python -m skprivcov demo`` and ``python -m skprivcov release``."""

import argparse
import sys

from skprivcov._demo import run_demo
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
        "--repeats", type=int, default=5, help="seeds averaged per cell (default 5)"
    )
    release = commands.add_parser(
        "release",
        help="release a private covariance of a CSV or NPY file",
        description="Release a private covariance of the rows of a CSV or NPY "
        "file, with a JSON record of the privacy spent (never the seed).",
    )
    add_release_arguments(release)
    args = parser.parse_args(argv)
    if args.command == "demo":
        if args.repeats < 1:
            parser.error("--repeats must be at least 1")
        run_demo(n_repeats=args.repeats)
        return 0
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


if __name__ == "__main__":
    sys.exit(main())
