"""What the house tests (function_length_test.py, layers_test.py) share: the
test of the test, which plants files in a scratch tree and asks the check
to judge each, and the command line of both."""
import os
import sys
import tempfile


def self_test(test_name, plants, problems_in):
    """Runs problems_in on a scratch tree of each plant (name, {path: text},
    the text a failure must hold, or None for a pass); returns the exit code."""
    failures = []
    for name, files, expected in plants:
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
                with open(os.path.join(root, path), "w") as f:
                    f.write(text)
            problems = problems_in(root)
            if expected is None and problems:
                failures.append(f"{name}: failed where it should pass: {problems}")
            elif expected is not None and not any(expected in p for p in problems):
                failures.append(f"{name}: not caught (expected '{expected}', got {problems})")
    for line in failures:
        print(line, file=sys.stderr)
    if failures:
        return 1
    print(f"{test_name} --self-test: all {len(plants)} plants judged right")
    return 0


def main(test_name, usage, plants, problems_in, check):
    """The command line: --self-test, or the check of --root DIR (the
    repository's root by default)."""
    args = sys.argv[1:]
    if args == ["--self-test"]:
        sys.exit(self_test(test_name, plants, problems_in))
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if len(args) == 2 and args[0] == "--root":
        root = args[1]
    elif args:
        sys.exit(usage)
    sys.exit(check(root))
