"""Finds a Python interpreter that has the modules a script needs.

The first python3 on the PATH (a pyenv or virtualenv, say) may lack the
modules scripts/setup.sh installs from Debian (python3-numpy,
python3-matplotlib) into the system interpreter. require() returns when the
running interpreter has them; else it re-runs the script with
/usr/bin/python3 when that one has them; else it exits with one line naming
the missing modules and the command that installs them.
"""

import importlib.util
import os
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
DEBIAN_PACKAGES = {"numpy": "python3-numpy", "matplotlib": "python3-matplotlib"}


def require(*modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    running = os.path.realpath(sys.executable or "")
    if (os.path.exists(SYSTEM_PYTHON) and running != os.path.realpath(SYSTEM_PYTHON)
            and not os.environ.get("LOAZ_PYTHON_REEXEC")):
        check = subprocess.run([SYSTEM_PYTHON, "-c", "import " + ", ".join(modules)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if check.returncode == 0:
            os.environ["LOAZ_PYTHON_REEXEC"] = "1"
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    packages = " ".join(DEBIAN_PACKAGES.get(m, "python3-" + m) for m in missing)
    sys.exit("%s: needs the Python module%s %s, missing from %s: install with "
             "`apt-get install %s` (or scripts/setup.sh), or `pip install %s`"
             % (os.path.basename(sys.argv[0]), "s" if len(missing) > 1 else "", ", ".join(missing),
                sys.executable, packages, " ".join(missing)))
