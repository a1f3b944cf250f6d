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
import csv
import datetime
import json
import os
import pathlib
import sqlite3
import tempfile
import warnings

import numpy as np

from skprivcov._fit import public_parameters
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


class ReleaseError(Exception):
    """A bad file or value: reported in one line, nothing written."""


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


# Reading a CSV file (docs/threat_model.rst, "Reading files on the command
# line"). Before the budget is charged only public facts may refuse a file
# (docs/algorithms.rst §13.2): its existence and extension, its first line (the
# header, or the first row: it sets the width d and is refused if it holds no
# number) and the number of lines n. The rest of the read is a total function
# of the bytes: a row is a line, and a cell that is not a number, or every cell
# of a line of another width, is NaN, for the estimator's --nonfinite rule after
# the charge. np.loadtxt, used before, took "#" for a comment (an error cell
# such as #N/A cut its line short, which was then refused as ragged, for free;
# a first cell starting with "#" dropped its line, so that n depended on a
# value), and refused bytes that are not UTF-8 and quoted commas likewise.
_BOM = b"\xef\xbb\xbf"
_BLOCK_BYTES = 1 << 20
_NEWLINE, _COMMA, _QUOTE = b"\n"[0], b","[0], b'"'[0]


def _cell_as_float(text):
    """A cell's number, or NaN if it is not one: Python's float() syntax, so
    "nan" and "inf" are the non-finite floats they name."""
    try:
        return float(text)
    except ValueError:
        return np.nan


def _floats(cells):
    """The numbers of the cells, NaN where a cell is not one: float() of every
    cell in one C-level pass (no Python code runs per cell), or, if a cell is
    not a number, cell by cell with NaN for it."""
    try:
        return np.fromiter(map(float, cells), np.float64, len(cells))
    except ValueError:
        return np.fromiter(map(_cell_as_float, cells), np.float64, len(cells))


def _line_text(line):
    """One line's text: its newline and one carriage return before it removed
    (CRLF files), each byte that is not ASCII read as U+FFFD, which is never
    part of a number, so decoding cannot fail."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    return line.decode("ascii", "replace")


def _cells(text):
    """The cells of one line: split on commas, aware of quotes within this line
    only (csv.reader is fed this one line, so a quote never joins two lines):
    '"1.5"' is the cell 1.5, '"1,5"' one cell that is not a number. None if csv
    cannot split it (a carriage return inside the line outside quotes, a cell
    beyond csv's field size limit)."""
    if '"' not in text:
        return text.split(",")
    try:
        records = list(csv.reader([text]))
    except csv.Error:
        return None
    return records[0] if len(records) == 1 else None


def _line_blocks(handle):
    """The rest of the file in blocks of whole lines, each line ending in
    b"\n": a last line without one gets one. A row is a line, whatever it
    holds: the file is split on b"\n" alone."""
    pending = []
    while chunk := handle.read(_BLOCK_BYTES):
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:
            pending.append(chunk)
            continue
        yield b"".join([*pending, chunk[:cut]])
        pending = [chunk[cut:]]
    tail = b"".join(pending)
    if tail:
        yield tail + b"\n"


def _capped_blocks(blocks, width):
    """The blocks cut to at most max(1, 2^17 // width) lines each, so that what
    a block's parse allocates (lines × width numbers and cells) has a bound
    set by public facts, not by how short the lines are (review of issue 32:
    1 MiB of empty lines parsed as a million rows at once ran out of memory
    before the charge where a clean file of the same n and width did not)."""
    most = max(1, (_BLOCK_BYTES // 8) // width)
    for block in blocks:
        ends = np.flatnonzero(np.frombuffer(block, np.uint8) == _NEWLINE)
        if len(ends) <= most:
            yield block
            continue
        start = 0
        for end in ends[most - 1 :: most]:
            yield block[start : end + 1]
            start = end + 1
        if start < len(block):
            yield block[start:]


def _count_lines(handle):
    """The number of lines from here on, as _line_blocks splits them: the
    newlines, plus one for a last line without a newline (so "1,2\n" is one
    line, "1,2\n\n" two, the second empty, and "1,2" one)."""
    count, last = 0, b"\n"
    while chunk := handle.read(_BLOCK_BYTES):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count + (last != b"\n")


def _parse_block(block, width):
    """The rows of a block of whole lines (each ending in b"\n"), one per line:
    a line of ``width`` cells gives their numbers (NaN for a cell that is not
    one), any other line a row of NaN. Vectorised: the lines without a quote
    and of the right width (all of them, in a clean file) are found with numpy
    and read as one text; only lines with a quote go through csv, one by one."""
    if b"\r" in block:
        block = block.replace(b"\r\n", b"\n")  # one carriage return per line
    codes = np.frombuffer(block, np.uint8)
    ends = np.flatnonzero(codes == _NEWLINE)
    starts = np.concatenate(([0], ends[:-1] + 1))
    rows = np.full((len(ends), width), np.nan)
    plain = np.add.reduceat(codes == _COMMA, starts, dtype=np.intp) == width - 1
    quoted = np.zeros(len(ends), bool)
    if b'"' in block:
        quoted = np.add.reduceat(codes == _QUOTE, starts, dtype=np.intp) > 0
        plain &= ~quoted
    if plain.all():
        text = block.decode("ascii", "replace")
    else:
        text = (
            codes[np.repeat(plain, ends - starts + 1)]
            .tobytes()
            .decode("ascii", "replace")
        )
    if text:
        # Each plain line has width - 1 commas: its cells, in order.
        cells = text[:-1].replace("\n", ",").split(",")
        rows[plain] = _floats(cells).reshape(-1, width)
    for line in np.flatnonzero(quoted):
        cells = _cells(block[starts[line] : ends[line]].decode("ascii", "replace"))
        if cells is not None and len(cells) == width:
            rows[line] = _floats(cells)
    return rows


def _read_csv(path, skip_header):
    """The rows of a CSV file, one per line after the optional header. Only
    public facts refuse it (docs/algorithms.rst §13.2): no line, an empty or
    unsplittable first line, a first line without a number unless
    --skip-header, no row after the header. The rows cannot fail to be read
    (only the disk can fail): their values are judged after the charge."""
    with open(path, "rb") as handle:
        first = handle.readline()
        # A UTF-8 byte order mark at the very start is not part of the text.
        start = len(_BOM) if first.startswith(_BOM) else 0
        if not first[start:]:
            raise ReleaseError(f"{path} holds no rows")
        text = _line_text(first[start:])
        if not text:
            raise ReleaseError(
                f"the first line of {path} is empty: it must hold the column "
                "names (with --skip-header) or the first row"
            )
        cells = _cells(text)
        if cells is None:
            raise ReleaseError(f"cannot split the first line of {path} into cells")
        if not skip_header and all(np.isnan(_cell_as_float(c)) for c in cells):
            # Column names, as a file forgetting --skip-header has. Names are
            # public; a first row with no number at all is refused like them
            # (a documented rule on the first line).
            raise ReleaseError(
                f"the first line of {path} holds no number: pass --skip-header "
                "if it holds column names"
            )
        width = len(cells)
        data = handle.tell() if skip_header else start
        handle.seek(data)
        n = _count_lines(handle)
        if n == 0:
            raise ReleaseError(f"{path} holds no rows")
        try:
            rows = np.empty((n, width))
        except MemoryError:
            raise ReleaseError(
                f"{path}: {n} rows of {width} columns do not fit in memory"
            ) from None
        handle.seek(data)
        filled = 0
        for block in _capped_blocks(_line_blocks(handle), width):
            parsed = _parse_block(block, width)
            if filled + len(parsed) > n:
                break
            rows[filled : filled + len(parsed)] = parsed
            filled += len(parsed)
        else:
            if filled == n:
                return rows
    # Another program wrote to the file between the count and the read.
    raise ReleaseError(f"{path} changed while it was being read")


def _read_rows(path, skip_header):
    """The rows of the file. Nothing but public facts refuses it before the
    charge, and no message contains a data value (docs/algorithms.rst §13.1,
    §13.2)."""
    if not path.is_file():
        raise ReleaseError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".csv"):
        raise ReleaseError(f"the input must be a .csv or .npy file, got {path}")
    if suffix == ".csv":
        try:
            return _read_csv(path, skip_header)
        except OSError as error:
            reason = error.strerror or type(error).__name__
            raise ReleaseError(f"cannot read {path} ({reason})") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise ReleaseError(f"cannot read {path} as a NumPy array file") from None
    if rows.ndim != 2:
        raise ReleaseError(
            f"{path} holds a {rows.ndim}-D array; it must be 2-D "
            "(one row per record, one column per feature)"
        )
    return rows


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
        "n_features": int(estimator.n_features_in_),
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
        rows = _read_rows(args.input, args.skip_header)
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
