"""AutoCovariance on the centred covariance (``assume_centered=False``).

Issue 20 tuned the automatic choice on second moments only (``bench_auto.py``
runs the default ``assume_centered=True``). This script measures the centred
case: the error ‖Ĉ − C‖_F of AutoCovariance and of the mechanism it would run
(AdaptiveCov under zCDP, nuclear-Laplace under pure DP), each over the zero
matrix's ‖C‖_F (C the centred covariance of the bounded rows), with the
choices made, the choice's noise level ℓ and the traces of the second moment
and of C. A ratio above 1 is worse than releasing nothing.

    python benchmarks/bench_auto_centred.py [--repeats 6]
"""

import argparse
import warnings

import numpy as np
from _settings import BUNDLED, DLY22, load

from skprivcov import AdaptiveCovariance, AutoCovariance, NuclearLaplaceCovariance
from skprivcov.covariance._auto import choice_noise_level
from skprivcov.privacy import PrivacyCost

BUDGETS = [("rho", 0.01), ("rho", 0.1), ("rho", 1.0)]
BUDGETS += [("epsilon", 0.5), ("epsilon", 1.0), ("epsilon", 4.0)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=6)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for label in [*BUNDLED, *DLY22]:
        X = load(label)
        n, d = X.shape
        C = np.cov(X, rowvar=False, bias=True)
        zero = np.linalg.norm(C)
        for kind, value in BUDGETS:
            budget = {kind: value}
            rest = value * 15 / 16
            cost = PrivacyCost.zcdp(rest) if kind == "rho" else PrivacyCost.pure(rest)
            level = choice_noise_level(n, d + 1, cost)
            mechanism = (
                AdaptiveCovariance if kind == "rho" else NuclearLaplaceCovariance
            )
            auto, mech, choices = [], [], ""
            for seed in range(args.repeats):
                common = {**budget, "assume_centered": False, "random_state": seed}
                fitted = AutoCovariance(**common).fit(X)
                auto.append(np.linalg.norm(fitted.covariance_ - C))
                choices += fitted.mechanism_[0]
                mech.append(np.linalg.norm(mechanism(**common).fit(X).covariance_ - C))
            print(
                f"{label:20s} {kind}={value:<5g} auto/zero={np.mean(auto) / zero:6.2f}"
                f" mechanism/zero={np.mean(mech) / zero:6.2f} choices={choices}"
                f" level={level:.4f} trS={np.mean(np.sum(X**2, axis=1)):.3f}"
                f" trC={np.trace(C):.3f} ‖C‖F/trC={zero / np.trace(C):.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
