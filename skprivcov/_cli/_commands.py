"""``python -m skprivcov release`` and ``pca``: a private covariance, or private
principal components, of a CSV or NPY file.

The file is read as rows (NPY through a read-only memmap, so it streams like any
memmap), one estimator is fitted, and two files are written: the released matrix
(``.npy`` or ``.csv``: the covariance, or the components) and a JSON record of
the mechanism, its public parameters, the privacy spent (and for ``pca`` the
explained variances and the private mean). The seed is never written: with it
and the release anyone could regenerate the noise. Nothing is written unless the
whole release succeeds, and existing files are kept unless ``--force``. With
``--ledger`` the spend is charged to a file accountant first, and refused there
if the budget cannot pay for it.
"""

import argparse
import datetime
import json
import os
import pathlib
import sqlite3
import tempfile

import numpy as np

from skprivcov._cli._csv import ReleaseError, read_rows
from skprivcov._fit import collected_warnings, issue_warnings, public_parameters
from skprivcov.covariance import AutoCovariance, ZeroCovariance
from skprivcov.decomposition import PrivatePCA
from skprivcov.privacy import CAVEATS, BudgetExceededError, PrivacyAccountant
from skprivcov.utils import registry

__all__ = [
    "MECHANISMS",
    "ReleaseError",
    "add_pca_arguments",
    "add_release_arguments",
    "run_pca",
    "run_release",
]

# --mechanism NAME: every registered estimator with a command-line name.
MECHANISMS = {
    entry.cli_name: entry.estimator
    for entry in registry().values()
    if entry.cli_name is not None
}
_FORMATS = (".npy", ".csv")
# The Python default (docs/choosing.rst): the automatic choice.
DEFAULT_MECHANISM = "auto"
DEFAULT_NORM_BOUND = "auto"


def _bound_argument(text):
    """--norm-bound: a number, "auto" (a private bound, §18.2), or a public
    range LOW,HIGH to choose the private bound in."""
    if text == "auto":
        return text
    try:
        if "," in text:
            low, high = text.split(",")
            return (float(low), float(high))
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number, 'auto' or LOW,HIGH, got {text!r}"
        ) from None


def _add_shared_arguments(parser, output_help):
    parser.add_argument("input", type=pathlib.Path, help="rows: a .csv or .npy file")
    parser.add_argument(
        "--output", "-o", type=pathlib.Path, required=True, help=output_help
    )
    parser.add_argument(
        "--record",
        type=pathlib.Path,
        default=None,
        help="the JSON record of the release (default: OUTPUT + .json, e.g. "
        "cov.npy.json)",
    )
    parser.add_argument(
        "--mechanism",
        choices=sorted(MECHANISMS),
        default=DEFAULT_MECHANISM,
        help="the estimator; 'auto' chooses for the data and budget "
        "(docs/choosing.rst)",
    )
    budget = parser.add_argument_group(
        "budget",
        "rho (zCDP) or epsilon with delta; pure ε-DP with epsilon alone; none "
        "given: rho 0.1, as in Python",
    )
    budget.add_argument(
        "--rho", type=float, default=None, help="ρ of ρ-zCDP (default: 0.1)"
    )
    budget.add_argument("--epsilon", type=float, default=None, help="ε")
    budget.add_argument("--delta", type=float, default=None, help="δ of (ε, δ)-DP")
    parser.add_argument(
        "--norm-bound",
        type=_bound_argument,
        default=None,
        help="the bound on the row norms; longer rows are clipped. 'auto' (the "
        "default, as in Python): a private bound at 1/16 of the budget, written "
        "to the record (docs/algorithms.rst §18.2); LOW,HIGH: the same, chosen "
        "in that public range; a number: a public bound, chosen from what is "
        "known of the data without reading it (docs/choosing_bounds.rst)",
    )
    parser.add_argument(
        "--nonfinite",
        choices=("raise", "zero"),
        default="raise",
        help="a row with a NaN or infinite entry: refuse the file (after the "
        "budget is spent) or treat the row as zeros",
    )
    parser.add_argument(
        "--noise",
        choices=("hardened", "float"),
        default="hardened",
        help="exact discrete noise on a grid, from the OS CSPRNG without "
        "--seed (default), or numpy's floating-point samplers",
    )
    parser.add_argument(
        "--skip-header",
        action="store_true",
        help="the CSV file's first line holds column names",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="for reproducible experiments only: releases with the same seed "
        "share their noise (default: fresh OS entropy)",
    )
    ledger = parser.add_argument_group(
        "ledger",
        "charge the release to a file accountant (created with its budget the "
        "first time, then shared by every release that names it)",
    )
    ledger.add_argument(
        "--ledger", type=pathlib.Path, default=None, help="the ledger file (SQLite)"
    )
    ledger.add_argument(
        "--ledger-rho", type=float, default=None, help="a new ledger's total ρ"
    )
    ledger.add_argument(
        "--ledger-epsilon", type=float, default=None, help="a new ledger's total ε"
    )
    ledger.add_argument(
        "--ledger-delta", type=float, default=None, help="a new ledger's total δ"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite existing output files"
    )


def add_release_arguments(parser):
    _add_shared_arguments(parser, "the released matrix: .npy or .csv")
    parser.add_argument(
        "--assume-centered",
        action="store_true",
        help="release the second moment XᵀX/n (assume_centered=True) instead "
        "of the centred covariance and its private mean (the default, as in "
        "Python)",
    )


def add_pca_arguments(parser):
    _add_shared_arguments(
        parser,
        "the components, one per row: .npy or .csv (the record holds "
        "the explained variances and the private mean)",
    )
    parser.add_argument(
        "--n-components",
        type=int,
        default=None,
        help="components kept (default: all)",
    )


def _output_paths(args):
    output = args.output
    if output.suffix.lower() not in _FORMATS:
        raise ReleaseError(f"--output must end in .npy or .csv, got {output}")
    # OUTPUT + .json: cov.npy and cov.csv never share a record.
    record = args.record or output.with_name(output.name + ".json")
    if record.suffix.lower() != ".json":
        raise ReleaseError(f"--record must end in .json, got {record}")
    for path in (output, record):
        if path.is_dir():
            raise ReleaseError(f"{path} is a directory")
        if path.exists() and not args.force:
            raise ReleaseError(f"{path} exists; pass --force to overwrite it")
        if not path.parent.is_dir():
            raise ReleaseError(f"no such directory: {path.parent}")
        if args.ledger is not None and _same_file(path, args.ledger):
            raise ReleaseError(f"{path} is the ledger; write the release elsewhere")
    return output, record


def _same_file(first, second):
    """Whether two paths name one file (symbolic and hard links included)."""
    if first.exists() and second.exists():
        return os.path.samefile(first, second)
    return os.path.realpath(first) == os.path.realpath(second)


def _budget(args):
    return {"rho": args.rho, "epsilon": args.epsilon, "delta": args.delta}


def _norm_bound(args):
    return DEFAULT_NORM_BOUND if args.norm_bound is None else args.norm_bound


def _estimator(args):
    """The estimator, its parameters checked before any data is read."""
    budget = _budget(args)
    if args.mechanism == "zero":
        # The zero matrix reads nothing but the shape: no budget, bound or seed.
        if any(value is not None for value in budget.values()):
            raise ReleaseError("--mechanism zero spends nothing; give no budget")
        return ZeroCovariance(assume_centered=args.assume_centered)
    return MECHANISMS[args.mechanism](
        **budget,
        norm_bound=_norm_bound(args),
        assume_centered=args.assume_centered,
        nonfinite=args.nonfinite,
        noise=args.noise,
        random_state=args.seed,
    )


def _pca(args):
    """PrivatePCA making its own release, checked before any data is read."""
    if args.mechanism == "zero":
        raise ReleaseError("--mechanism zero releases nothing: it has no components")
    settings = {
        **_budget(args),
        "norm_bound": _norm_bound(args),
        "nonfinite": args.nonfinite,
        "noise": args.noise,
    }
    if MECHANISMS[args.mechanism] is AutoCovariance:
        settings["allow_zero"] = False  # as PrivatePCA's default (docs/pca.rst)
    estimator = MECHANISMS[args.mechanism](**settings)
    if args.n_components is not None and args.n_components < 1:
        raise ReleaseError("--n-components must be at least 1")
    return PrivatePCA(
        n_components=args.n_components, estimator=estimator, random_state=args.seed
    )


def _accountant(args):
    """The file accountant of --ledger (None without it)."""
    budget = {
        "rho": args.ledger_rho,
        "epsilon": args.ledger_epsilon,
        "delta": args.ledger_delta,
    }
    if args.ledger is None:
        if any(value is not None for value in budget.values()):
            raise ReleaseError(
                "--ledger-rho/--ledger-epsilon/--ledger-delta need --ledger"
            )
        return None
    if args.ledger.suffix.lower() == ".json" or not args.ledger.parent.is_dir():
        raise ReleaseError(
            f"--ledger must name a file in an existing directory: {args.ledger}"
        )
    if not args.ledger.exists() and all(value is None for value in budget.values()):
        raise ReleaseError(
            f"{args.ledger} does not exist yet: give its total budget with "
            "--ledger-rho or --ledger-epsilon (and --ledger-delta)"
        )
    try:
        return PrivacyAccountant(**budget, path=args.ledger)
    except (ValueError, TypeError, OSError, sqlite3.Error) as error:
        raise ReleaseError(f"--ledger: {_first_line(error)}") from None


def _charged_estimator(model):
    """The estimator whose fit charges the accountant (PCA's own release)."""
    return model.estimator if isinstance(model, PrivatePCA) else model


def _first_line(error):
    return str(error).strip().splitlines()[0]


def _write_atomically(path, write):
    """``write(handle)`` into a temporary file beside ``path``, then rename it:
    a failure leaves no partial file."""
    handle = tempfile.NamedTemporaryFile(
        "wb", dir=path.parent, prefix=f".{path.name}.", delete=False
    )
    try:
        with handle:
            write(handle)
        return handle.name
    except BaseException:
        os.unlink(handle.name)
        raise


def _spent_record(spent):
    return {
        "notion": spent.notion,
        "parameter": spent.parameter,
        "rho": spent.rho,
        "epsilon": spent.epsilon,
        "delta": spent.delta,
        "caveats": {code: CAVEATS[code] for code in spent.caveats},
        "description": str(spent),
    }


def _as_list(values):
    return None if values is None else np.asarray(values).tolist()


def _record(args, estimator, output):
    record = {
        "skprivcov_release": 1,
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "input": str(args.input),
        "output": str(output),
        "mechanism": args.mechanism,
        "estimator": type(estimator).__name__,
        "parameters": public_parameters(estimator),
        "privacy_spent": _spent_record(estimator.privacy_spent_),
        # The bound the rows were clipped at: public, or with --norm-bound
        # auto the output of the private step "norm bound" (§18.2).
        "norm_bound": getattr(estimator, "norm_bound_", None),
        # The per-feature centre and scale of §23 (the rows the release read
        # were (x − centre)/scale): the private steps' output, or None.
        "feature_location": _as_list(getattr(estimator, "feature_location_", None)),
        "feature_scale": _as_list(getattr(estimator, "feature_scale_", None)),
        "n_features": int(estimator.n_features_in_),
        # How much of the release is signal (§23): post-processing.
        "signal_to_noise": getattr(estimator, "signal_to_noise_", None),
    }
    if args.ledger is not None:
        record["ledger"] = str(args.ledger)
    return record


def _release_record(args, estimator, output):
    record = _record(args, estimator, output)
    record["assume_centered"] = bool(args.assume_centered)
    if not args.assume_centered:
        record["location"] = estimator.location_.tolist()
    return record


def _pca_record(args, model, output):
    record = _record(args, model.estimator_, output)
    record["n_components"] = int(model.n_components_)
    record["explained_variance"] = model.explained_variance_.tolist()
    record["explained_variance_ratio"] = model.explained_variance_ratio_.tolist()
    record["mean"] = model.mean_.tolist()
    return record


def _fit_and_write(args, make_model, matrix_of, record_of):
    """Check the public facts, charge, read, fit, and write the matrix and its
    record atomically. Raises ReleaseError for a bad file or value."""
    output, record_path = _output_paths(args)
    try:
        model = make_model(args)
        model._validate_params()  # bad values are refused before reading
        # The ledger is opened (or created) only once the public checks pass.
        _charged_estimator(model).set_params(accountant=_accountant(args))
        rows = read_rows(args.input, args.skip_header)
        # The fit's warnings after the files are written: under
        # warnings-as-errors the paid-for release is still written (§23).
        with collected_warnings() as pending:
            model.fit(rows)
    except BudgetExceededError as error:
        raise ReleaseError(_first_line(error)) from None
    except (ValueError, TypeError) as error:
        # skprivcov's messages name problems, never data values (§13.1); the
        # first line is the whole of it.
        message = _first_line(error)
        raise ReleaseError(message.replace("nonfinite=", "--nonfinite ")) from None
    matrix = matrix_of(model)
    record = record_of(args, model, output)

    def write_matrix(handle):
        if output.suffix.lower() == ".npy":
            np.save(handle, matrix)
        else:
            np.savetxt(handle, matrix, delimiter=",", fmt="%.17g")

    def write_record(handle):
        handle.write((json.dumps(record, indent=2) + "\n").encode())

    try:
        _write_both((output, write_matrix), (record_path, write_record))
    except OSError as error:
        # Spent, but nothing written: say so in one line (no traceback).
        raise ReleaseError(
            f"cannot write the release ({error.strerror or type(error).__name__}); "
            f"nothing was written, and the budget of this fit is spent"
        ) from None
    issue_warnings(pending)
    return model, output, record_path


def _write_both(*writes):
    """Write every (path, write) to a temporary file, then rename them all: a
    failure leaves none of them."""
    temporary, renamed = [], []
    try:
        for path, write in writes:
            temporary.append(_write_atomically(path, write))
        for (path, _), name in zip(writes, temporary, strict=True):
            os.replace(name, path)
            renamed.append(path)
    except BaseException:
        for name in [*temporary, *renamed]:
            if os.path.isfile(name):
                os.unlink(name)
        raise


def run_release(args):
    """Fit the chosen estimator on the rows of ``args.input`` and write the
    release and its record. Raises ReleaseError for a bad file or value."""
    return _fit_and_write(
        args, _estimator, lambda estimator: estimator.covariance_, _release_record
    )


def run_pca(args):
    """Fit PrivatePCA (its own release with the chosen mechanism) on the rows of
    ``args.input`` and write the components and a record with the explained
    variances and the private mean."""
    return _fit_and_write(args, _pca, lambda model: model.components_, _pca_record)
