"""``python -m skprivcov release``: a private covariance of a CSV or NPY file.

The file is read as rows (NPY through a read-only memmap, so it streams like any
memmap), one estimator is fitted, and two files are written: the released matrix
(``.npy`` or ``.csv``) and a JSON record of the mechanism, its public parameters
and the privacy spent. The seed is never written: with it and the release anyone
could regenerate the noise. Nothing is written unless the whole release
succeeds, and existing files are kept unless ``--force``.
"""

import datetime
import json
import os
import pathlib
import tempfile
import warnings

import numpy as np

from skprivcov.covariance import ZeroCovariance
from skprivcov.covariance._base import public_parameters
from skprivcov.privacy import CAVEATS
from skprivcov.utils import registry

__all__ = ["MECHANISMS", "ReleaseError", "add_release_arguments", "run_release"]

# --mechanism NAME: every registered estimator with a command-line name.
MECHANISMS = {
    entry.cli_name: entry.estimator
    for entry in registry().values()
    if entry.cli_name is not None
}
_FORMATS = (".npy", ".csv")


class ReleaseError(Exception):
    """A bad file or value: reported in one line, nothing written."""


def add_release_arguments(parser):
    parser.add_argument("input", type=pathlib.Path, help="rows: a .csv or .npy file")
    parser.add_argument(
        "--output",
        "-o",
        type=pathlib.Path,
        required=True,
        help="the released matrix: .npy or .csv",
    )
    parser.add_argument(
        "--record",
        type=pathlib.Path,
        default=None,
        help="the JSON record of the release (default: OUTPUT with .json)",
    )
    parser.add_argument("--mechanism", choices=sorted(MECHANISMS), default="gaussian")
    budget = parser.add_argument_group(
        "budget", "rho (zCDP) or epsilon with delta; pure ε-DP with epsilon alone"
    )
    budget.add_argument("--rho", type=float, default=None)
    budget.add_argument("--epsilon", type=float, default=None)
    budget.add_argument("--delta", type=float, default=None)
    parser.add_argument(
        "--norm-bound",
        type=float,
        default=1.0,
        help="public bound on the row norms; longer rows are clipped (default 1)",
    )
    parser.add_argument(
        "--assume-centered",
        action="store_true",
        help="release the second moment XᵀX/n instead of the centred covariance",
    )
    parser.add_argument(
        "--nonfinite",
        choices=("raise", "zero"),
        default="raise",
        help="a row with a NaN or infinite entry: refuse the file (after the "
        "budget is spent) or treat the row as zeros (default raise)",
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
    parser.add_argument(
        "--force", action="store_true", help="overwrite existing output files"
    )


def _cell_as_float(text):
    try:
        return float(text)
    except ValueError:
        return np.nan


def _looks_like_a_header(path):
    """Whether the first line has no cell that is a number: column names, as
    a file forgetting --skip-header has. Names are public; a data row with no
    number at all is refused like one (stated in the docs)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        cells = handle.readline().strip().split(",")
    return cells != [""] and all(np.isnan(_cell_as_float(cell)) for cell in cells)


def _read_rows(path, skip_header):
    """The rows of the file. A parse failure is reported without the text of
    the failing cell or line (no message ever contains a data value,
    docs/algorithms.rst §13.1)."""
    if not path.is_file():
        raise ReleaseError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".csv"):
        raise ReleaseError(f"the input must be a .csv or .npy file, got {path}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. numpy's "input contained no data"
            if suffix == ".npy":
                return np.load(path, mmap_mode="r", allow_pickle=False)
            if not skip_header and _looks_like_a_header(path):
                raise ValueError("a header line")
            # A cell that is not a number is read as NaN, for the estimator's
            # --nonfinite rule after the charge (docs/algorithms.rst §13.2):
            # refusing it here would be free, and would tell it from NaN.
            return np.loadtxt(
                path,
                delimiter=",",
                skiprows=int(skip_header),
                ndmin=2,
                dtype=float,
                converters=_cell_as_float,
            )
    except (ValueError, OSError, EOFError):
        hint = (
            "" if skip_header else "; pass --skip-header if its first line holds names"
        )
        raise ReleaseError(
            f"cannot read {path} as a table of numbers (a cell is not a number, "
            f"or the rows have different lengths){hint}"
        ) from None


def _output_paths(args):
    output = args.output
    if output.suffix.lower() not in _FORMATS:
        raise ReleaseError(f"--output must end in .npy or .csv, got {output}")
    record = args.record or output.with_suffix(".json")
    if record.suffix.lower() != ".json":
        raise ReleaseError(f"--record must end in .json, got {record}")
    for path in (output, record):
        if path.exists() and not args.force:
            raise ReleaseError(f"{path} exists; pass --force to overwrite it")
        if not path.parent.is_dir():
            raise ReleaseError(f"no such directory: {path.parent}")
    return output, record


def _estimator(args):
    """The estimator, its parameters checked before any data is read."""
    budget = {"rho": args.rho, "epsilon": args.epsilon, "delta": args.delta}
    if args.mechanism == "zero":
        # The zero matrix reads nothing but the shape: no budget, bound or seed.
        if any(value is not None for value in budget.values()):
            raise ReleaseError("--mechanism zero spends nothing; give no budget")
        return ZeroCovariance(assume_centered=args.assume_centered)
    return MECHANISMS[args.mechanism](
        **budget,
        norm_bound=args.norm_bound,
        assume_centered=args.assume_centered,
        nonfinite=args.nonfinite,
        random_state=args.seed,
    )


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


def _record(args, estimator, input_path, output):
    spent = estimator.privacy_spent_
    record = {
        "skprivcov_release": 1,
        "created_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "input": str(input_path),
        "output": str(output),
        "mechanism": args.mechanism,
        "estimator": type(estimator).__name__,
        "parameters": public_parameters(estimator),
        "privacy_spent": {
            "notion": spent.notion,
            "parameter": spent.parameter,
            "rho": spent.rho,
            "epsilon": spent.epsilon,
            "delta": spent.delta,
            "caveats": {code: CAVEATS[code] for code in spent.caveats},
            "description": str(spent),
        },
        "n_features": int(estimator.n_features_in_),
        "assume_centered": bool(args.assume_centered),
    }
    if not args.assume_centered:
        record["location"] = estimator.location_.tolist()
    return record


def run_release(args):
    """Fit the chosen estimator on the rows of ``args.input`` and write the
    release and its record. Raises ReleaseError for a bad file or value."""
    output, record_path = _output_paths(args)
    try:
        estimator = _estimator(args)
        estimator._validate_params()  # bad values are refused before reading
        rows = _read_rows(args.input, args.skip_header)
        estimator.fit(rows)
    except (ValueError, TypeError) as error:
        # skprivcov's messages name problems, never data values (§13.1); the
        # first line is the whole of it.
        message = str(error).strip().splitlines()[0]
        raise ReleaseError(message.replace("nonfinite=", "--nonfinite ")) from None
    covariance = estimator.covariance_
    record = _record(args, estimator, args.input, output)

    def write_matrix(handle):
        if output.suffix.lower() == ".npy":
            np.save(handle, covariance)
        else:
            np.savetxt(handle, covariance, delimiter=",", fmt="%.17g")

    def write_record(handle):
        handle.write((json.dumps(record, indent=2) + "\n").encode())

    temporary = [_write_atomically(output, write_matrix)]
    try:
        temporary.append(_write_atomically(record_path, write_record))
    except BaseException:
        os.unlink(temporary[0])
        raise
    os.replace(temporary[0], output)
    os.replace(temporary[1], record_path)
    return estimator, output, record_path
