#!/usr/bin/python3
"""The CI recipes of docs/ci/ run as written, against a sample repository.

    /usr/bin/python3 tests/ci_recipes_test.py build/locksim            # locksim from the build
    /usr/bin/python3 tests/ci_recipes_test.py --deb build/deb/locksim_….deb   # as root: installs it too

Each recipe's YAML is read as its CI reads it (Debian's python3-yaml): the workflow-level
and job-level variables, and the shell of every step in order. The steps then run in a
sample repository, a temporary folder holding a team's own scenario files (the
monthly-statements pair of scenarios/examples/), under bash with -e and pipefail as both
CIs run them. Afterwards every file the recipe publishes must exist and be JUnit that
counts at least one test and no failure, and the recipe must still run `locksim check …
--junit` and a `locksim sweep … --max-rate` gate.

The steps that install locksim (GitHub's "Install locksim" step, GitLab's before_script)
fetch the .deb from LOCKSIM_DEB_URL and install it with apt-get. Given --deb, they run
too, with LOCKSIM_DEB_URL a file:// address of that .deb (root, and apt-get's network for
curl; tests/deb_install_test.sh runs it so from .ci/run). Without it they are skipped,
and the LOCKSIM program given comes first on PATH as `locksim`: how CTest runs it.
"""
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("ci_recipes_test: needs Debian's python3-yaml (./setup.sh --tests installs it)")

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE_FILES = ["monthly-statements.json", "monthly-statements-rate.json"]


class Recipe:
    def __init__(self, path, variables, install, steps, published):
        self.path = path
        self.variables = variables  # name -> value, as the CI exports them
        self.install = install  # [(name, script)]: fetch and install the .deb
        self.steps = steps  # [(name, script)]: the rest, in order
        self.published = published  # the files handed to the CI's JUnit report or artifacts


def github_recipe(path, document):
    jobs = document["jobs"]
    if len(jobs) != 1:
        raise ValueError(f"{path}: expected one job, found {len(jobs)}")
    job = next(iter(jobs.values()))
    variables = dict(document.get("env", {}))
    variables.update(job.get("env", {}))
    shell = job.get("defaults", {}).get("run", {}).get("shell")
    if shell != "bash":
        raise ValueError(f"{path}: the steps must run under bash (defaults.run.shell), not {shell}")
    install, steps, published = [], [], []
    for step in job["steps"]:
        if "run" in step:
            if "${{" in step["run"]:
                raise ValueError(f"{path}: step {step['name']!r} uses a ${{{{ }}}} expression, which only GitHub evaluates")
            (install if step["name"].startswith("Install locksim") else steps).append((step["name"], step["run"]))
        elif step["uses"].startswith("actions/upload-artifact@"):
            published += step["with"]["path"].split()
        elif step["uses"].startswith("mikepenz/action-junit-report@"):
            published += step["with"]["report_paths"].split()
    return Recipe(path, variables, install, steps, published)


def gitlab_recipe(path, document):
    jobs = {name: job for name, job in document.items() if isinstance(job, dict) and "script" in job}
    if len(jobs) != 1:
        raise ValueError(f"{path}: expected one job, found {len(jobs)}")
    job = next(iter(jobs.values()))
    # GitLab runs a job's lines in one shell, stopping at the first that fails.
    install = [("before_script", "\n".join(job.get("before_script", [])))]
    steps = [("script", "\n".join(job["script"]))]
    artifacts = job["artifacts"]
    published = artifacts["reports"]["junit"] + artifacts.get("paths", [])
    return Recipe(path, dict(job.get("variables", {})), install, steps, published)


def recipes():
    readers = {"github-actions.yml": github_recipe, "gitlab-ci.yml": gitlab_recipe}
    found = []
    for name, reader in readers.items():
        path = os.path.join("docs", "ci", name)
        with open(os.path.join(SOURCE, path)) as file:
            found.append(reader(path, yaml.safe_load(file)))
    return found


def sample_repository(folder):
    """A team's repository: its own scenario files under scenarios/."""
    os.makedirs(os.path.join(folder, "scenarios"))
    for name in SAMPLE_FILES:
        shutil.copy(os.path.join(SOURCE, "scenarios", "examples", name), os.path.join(folder, "scenarios", name))


def junit_problem(path):
    """Why the file is not a passing JUnit report, or None."""
    if not os.path.isfile(path):
        return "was not written"
    with open(path) as file:
        text = file.read()
    if "<testsuites" not in text or "<testcase" not in text:
        return "is not JUnit XML with a test case"
    if "<failure" in text or "<error" in text:
        return "reports a failure"
    return None


def run(recipe, program, deb):
    """Runs the recipe's steps in a fresh sample repository; returns its problems."""
    problems = []
    texts = "\n".join(script for _, script in recipe.steps)
    if "locksim check scenarios/ --junit" not in texts:
        problems.append("no step runs `locksim check scenarios/ --junit …`")
    if "locksim sweep" not in texts or "--max-rate" not in texts:
        problems.append("no step runs a `locksim sweep … --max-rate` gate")
    with tempfile.TemporaryDirectory(prefix="locksim-ci-recipe-") as scratch:
        repository = os.path.join(scratch, "repository")
        sample_repository(repository)
        environment = dict(os.environ)
        environment.update({name: str(value) for name, value in recipe.variables.items()})
        steps = recipe.steps
        if deb:
            environment["LOCKSIM_DEB_URL"] = "file://" + os.path.abspath(deb)
            steps = recipe.install + steps
        else:
            programs = os.path.join(scratch, "bin")
            os.makedirs(programs)
            os.symlink(os.path.abspath(program), os.path.join(programs, "locksim"))
            environment["PATH"] = programs + os.pathsep + environment["PATH"]
        for name, script in steps:
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                                  cwd=repository, env=environment, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                problems.append(f"step {name!r} exited {done.returncode}:\n{done.stdout}{done.stderr}")
                return problems
        for published in dict.fromkeys(recipe.published):
            problem = junit_problem(os.path.join(repository, published))
            if problem:
                problems.append(f"{published}, which it publishes, {problem}")
    return problems


def main(arguments):
    if len(arguments) == 2 and arguments[0] == "--deb":
        program, deb = None, arguments[1]
    elif len(arguments) == 1:
        program, deb = arguments[0], None
    else:
        sys.exit("usage: ci_recipes_test.py LOCKSIM | --deb PACKAGE.deb")
    failed = 0
    for recipe in recipes():
        problems = run(recipe, program, deb)
        installed = "installed from the .deb" if deb else f"install steps skipped, {program} on PATH"
        if problems:
            failed += 1
            for problem in problems:
                print(f"FAIL {recipe.path}: {problem}")
        else:
            print(f"PASS {recipe.path}: {len(recipe.steps)} step(s) run ({installed}); "
                  f"published {', '.join(dict.fromkeys(recipe.published))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
