"""Command line: ``python -m skprivcov demo``, ``release`` and ``pca``."""

import argparse
import os
import sys

import numpy as np

from skprivcov import __version__
from skprivcov._cli import (
    ReleaseError,
    add_pca_arguments,
    add_release_arguments,
    plot_demo,
    run_demo,
    run_pca,
    run_release,
)
from skprivcov._fit import NOISE_DOMINATED_RATIO


class _Parser(argparse.ArgumentParser):
    """Errors in one line (no usage block), exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _HelpFormatter(argparse.HelpFormatter):
    """Appends "(default: …)" to an option's help unless the help states its
    default already or there is none to state (None, a flag's False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" in text
            or action.default in (None, False, argparse.SUPPRESS)
            or not action.option_strings
        ):
            return text
        return f"{text} (default: {action.default})"


def _parser():
    parser = _Parser(
        prog="skprivcov", description="Differentially private covariance release."
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="compare every mechanism on a bundled dataset",
        formatter_class=_HelpFormatter,
    )
    demo.add_argument("--repeats", type=int, default=3, help="seeds averaged per cell")
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
        formatter_class=_HelpFormatter,
    )
    add_release_arguments(release)
    pca = commands.add_parser(
        "pca",
        help="private principal components of a CSV or NPY file",
        description="Release the principal components of the rows of a CSV or "
        "NPY file (PrivatePCA with its own release), with a JSON record of the "
        "explained variances, the private mean and the privacy spent.",
        formatter_class=_HelpFormatter,
    )
    add_pca_arguments(pca)
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo(parser, args)
    run = run_release if args.command == "release" else run_pca
    try:
        model, output, record = run(args)
    except ReleaseError as error:
        # One line, whatever the paths in it hold.
        message = str(error).replace("\r", "\\r").replace("\n", "\\n")
        print(f"skprivcov {args.command}: error: {message}", file=sys.stderr)
        return 2
    if args.command == "release":
        d = model.covariance_.shape[0]
        what = "second moment" if args.assume_centered else "centred covariance"
        if not np.any(model.covariance_):
            what = f"{what} of zeros: nothing"
        print(f"released a {d} x {d} {what} ({model.privacy_spent_}) to {output}")
        ratio = getattr(model, "signal_to_noise_", None)
        if ratio is not None and 0.0 < ratio < NOISE_DOMINATED_RATIO:
            print(
                f"note: the release is mostly noise (signal_to_noise {ratio:.2g}, "
                f"below {NOISE_DOMINATED_RATIO:g}): more rows, a larger budget or a "
                "public --norm-bound would change that (docs/algorithms.rst §23)"
            )
    else:
        k, d = model.components_.shape
        spent = model.privacy_spent_
        print(f"released {k} components of {d} features ({spent}) to {output}")
    print(f"record in {record}")
    released_by = getattr(model, "estimator_", model)
    if args.norm_bound is None and getattr(released_by, "feature_scale_", None) is None:
        print(
            "note: rows were clipped to a private bound chosen at 1/16 of the "
            "budget (the record's norm_bound); give --norm-bound when a public "
            "one is known (docs/choosing_bounds.rst)"
        )
    elif args.norm_bound is None:
        print(
            "note: each feature was brought to a private scale (and centre) at "
            "1/4 of the budget (the record's feature_scale and "
            "feature_location), then rows were clipped to a private bound "
            "chosen at 1/16 of the rest (the record's norm_bound, for the rows "
            "so mapped; docs/algorithms.rst §23); give --norm-bound when a "
            "public one is known (docs/choosing_bounds.rst)"
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
