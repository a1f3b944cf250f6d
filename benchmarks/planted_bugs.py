"""Plant known privacy bugs one at a time and see which tests catch them.

Each file ``benchmarks/planted_bugs/NAME.patch`` is a realistic privacy bug (a
halved noise on one path, a wrong sensitivity norm, a step noised at the whole
budget, an over-spent split, a removed hardened branch, a score sized to the
wrong rows); its first line says what it is. For each bug this script copies
the tracked files of the repository into a temporary folder, applies the patch
there (the working tree is never touched), runs the tests in that copy and
reports whether they failed, i.e. caught the bug, and the first failing test.

Run from the repository root (opt in: about a minute per bug with ``-x``)::

    python benchmarks/planted_bugs.py                  # the fast loop, every bug
    python benchmarks/planted_bugs.py NAME ...         # some bugs
    python benchmarks/planted_bugs.py --pytest "-m 'not slow' -x -q"   # the default

docs/audit.rst ("Planted bugs") states how many of them the fast loop catches.
"""

import argparse
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUGS = ROOT / "benchmarks" / "planted_bugs"
DEFAULT_PYTEST = "-m 'not slow' -x -q -p no:cacheprovider"


def _copy_tracked_files(destination):
    """The files git tracks (and new ones it does not ignore), as they are in
    the working tree, copied to ``destination``."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, listing):
        source = ROOT / name.decode()
        if source.is_file():
            target = destination / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())


def _description(patch):
    return patch.read_text(encoding="utf-8").splitlines()[0]


def _run(patch, pytest_args):
    """(outcome, first failing test, seconds) for one planted bug."""
    with tempfile.TemporaryDirectory(prefix="planted-") as folder:
        copy = pathlib.Path(folder)
        _copy_tracked_files(copy)
        applied = subprocess.run(
            ["git", "apply", str(patch)], cwd=copy, capture_output=True, text=True
        )
        if applied.returncode != 0:
            return "does not apply", applied.stderr.strip().splitlines()[0], 0.0
        start = time.perf_counter()
        # ``python -m pytest`` from the copy imports the copy's skprivcov
        # (the current folder comes first on sys.path).
        # tests/test_planted_bugs.py checks that each patch still applies:
        # in a copy with one applied it fails whatever the bug, so it would
        # "catch" every bug. It is left out.
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *shlex.split(pytest_args),
                "--ignore=tests/test_planted_bugs.py",
            ],
            cwd=copy,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", result.stdout, re.MULTILINE)
    # With -x under pytest-xdist a failure ends the run as "interrupted" (2).
    if result.returncode == 1 or re.search(r"\b\d+ (failed|error)", result.stdout):
        return "caught", failed[0] if failed else "", seconds
    if result.returncode == 0:
        return "MISSED", "", seconds
    return f"pytest exit {result.returncode}", result.stdout[-300:], seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bugs", nargs="*", help="names of patches (default: all)")
    parser.add_argument(
        "--pytest", default=DEFAULT_PYTEST, help="pytest's arguments for each bug"
    )
    args = parser.parse_args(argv)
    patches = sorted(BUGS.glob("*.patch"))
    if args.bugs:
        patches = [BUGS / f"{name}.patch" for name in args.bugs]
    caught = 0
    print(f"pytest {args.pytest}")
    for patch in patches:
        outcome, test, seconds = _run(patch, args.pytest)
        caught += outcome == "caught"
        print(f"{patch.stem:40s} {outcome:14s} {seconds:6.1f} s  {test}")
        print(f"    {_description(patch)}")
    print(f"caught {caught} of {len(patches)}")
    return 0 if caught == len(patches) else 1


if __name__ == "__main__":
    sys.exit(main())
