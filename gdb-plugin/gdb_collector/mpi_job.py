"""One GDB per MPI rank (`mpirun -np N gdb -batch ... --args ./app`): each
GDB launches one rank, and every rank's experiment goes into one job
directory, mpi_job.KEY, as M_r<rank>.er, listed in its ranks.erg (the
runtime joins it).  KEY names the job for every rank of it: the launcher's
job id where it puts one in the environment (Open MPI, PMIx; Slurm's job
and step: `srun -n N gdb ...`, whose tasks are ranks by SLURM_PROCID where
no MPI variable says more), else the launcher process that started this
GDB (MPICH's Hydra proxy: one per node), by its pid and start time."""

import os
import stat

from . import native

JOB_VARIABLES = ("OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE")
JOB_PREFIX = "mpi_job."


SLURM_JOB_VARIABLES = ("SLURM_JOB_ID", "SLURM_STEP_ID")


def _number(value):
    return int(value) if value is not None and value.isdigit() and len(value) < 10 else None


def _rank(environment):
    _, _, variables, (task, tasks) = native.mpi_names()
    for name in variables:
        rank = _number(environment(name))  # (each a query of GDB's: once)
        if rank is not None:
            return rank
    if (_number(environment(tasks)) or 0) > 1:
        return _number(environment(task))
    return None


def _plain(value):
    return bool(value) and len(value) < 64 and all(c.isalnum() or c in "-_." for c in value)


def _job_key(environment):
    for name in JOB_VARIABLES:
        value = environment(name)
        if _plain(value):
            return value
    job, step = (environment(name) for name in SLURM_JOB_VARIABLES)
    if _plain(job) and _plain(step):  # the same on every node of the step
        return "slurm-%s.%s" % (job, step)
    parent = os.getppid()
    try:
        with open("/proc/%d/stat" % parent, "rb") as f:
            # after the command's ")": state is field 3, starttime field 22
            started = f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError, UnicodeDecodeError):
        return None
    return "%d-%s" % (parent, started)


def rank_experiment(store_directory, environment):
    """(job directory, "M_r<rank>.er") for a program this GDB launches as an
    MPI rank, the directory made if needed; None for any other program, or
    when the directory cannot be ours (then the usual name is used)."""
    rank, key = _rank(environment), None
    if rank is not None:
        key = _job_key(environment)
    if key is None:
        return None
    directory = os.path.join(store_directory or os.getcwd(), JOB_PREFIX + key)
    try:
        os.mkdir(directory, 0o777)
    except FileExistsError:
        st = os.lstat(directory)  # another rank's GDB made it; never a link or someone else's
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            return None
    except OSError:
        return None
    return directory, "%s%d.er" % (native.mpi_names()[0], rank)
