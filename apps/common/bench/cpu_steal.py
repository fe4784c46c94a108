"""How much CPU time the hypervisor took from a run ("steal"), for the compare_pytorch scripts.

On a virtual machine the host may take CPU time from either framework's run; a ratio between a
run that lost a quarter of its CPU and one that lost none says little, so the scripts print the
share stolen beside each figure.
"""


def cpu_times():
    """Aggregate /proc/stat CPU times (user … steal), or None where there is no /proc."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    return [int(v) for v in fields[1:9]]


def stolen_share(before, after):
    """Fraction of all CPU time between two cpu_times() readings that the hypervisor stole."""
    if before is None or after is None:
        return None
    delta = [b - a for a, b in zip(before, after)]
    return delta[7] / sum(delta) if sum(delta) else 0.0


def measured(run, *args):
    """(run(*args), the share of CPU time stolen while it ran)."""
    before = cpu_times()
    result = run(*args)
    return result, stolen_share(before, cpu_times())
