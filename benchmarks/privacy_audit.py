"""The privacy audit report: per estimator, the claimed ε, the audited lower
bound, and the result of the same audit on a planted bug.

Each line draws ``--releases`` releases on each of two neighbouring datasets
(10 rows in R², one row e_1 replaced by e_2), computes the case's statistic and
derives a lower bound on ε with 99% confidence (Clopper–Pearson on threshold
events; ``skprivcov.utils._audit``). zCDP claims are compared at δ = 0.01 by
their Canonne–Kamath–Steinke ε. A correct estimator must stay below its claim;
the planted bug must exceed it.

    python benchmarks/privacy_audit.py [--releases 20000] [--nuclear-releases 2000]
"""

import argparse
import time

from skprivcov.utils._audit import AUDIT_CASES, audit


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=20_000)
    parser.add_argument("--nuclear-releases", type=int, default=2_000)
    parser.add_argument("--n-jobs", type=int, default=-1)
    args = parser.parse_args()
    print(
        "| estimator | δ | claimed ε | audited lower bound | planted bug "
        "| bug's lower bound | bug caught | releases | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, case in AUDIT_CASES.items():
        releases = args.nuclear_releases if "Nuclear" in name else args.releases
        start = time.perf_counter()
        honest = audit(case, n_releases=releases, seed=21, n_jobs=args.n_jobs)
        planted = audit(
            case, n_releases=releases, seed=22, bug=True, n_jobs=args.n_jobs
        )
        status = "FAIL: claim violated" if honest.violation else ""
        print(
            f"| {name} | {honest.delta:g} | {honest.claimed_epsilon:.3f} "
            f"| {honest.lower_bound:.3f} {status}| {case.bug_label} "
            f"| {planted.lower_bound:.3f} | {'yes' if planted.violation else 'NO'} "
            f"| {releases} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
