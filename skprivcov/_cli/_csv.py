"""The command line's reader of CSV and NPY files (docs/threat_model.rst,
"Reading files on the command line"): rows in bounded memory, refused before
the charge for public facts only, and no message with a data value
(docs/algorithms.rst §13.1, §13.2)."""

import csv
import warnings

import numpy as np

__all__ = ["ReleaseError", "read_rows"]


class ReleaseError(Exception):
    """A bad file or value: reported in one line, nothing written."""


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


def read_rows(path, skip_header):
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
