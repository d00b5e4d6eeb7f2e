"""The command line: ``python -m exactsched`` and the ``exactsched`` command."""

import sys


def run() -> int:
    """Load the command line and run it; the exit status.

    Ctrl-C while the modules load ends like Ctrl-C anywhere else (one line, status
    130): :func:`exactsched.cli.main`, which turns every error into a status, does
    not exist yet then.
    """
    try:
        from exactsched.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("exactsched: error: interrupted\n")  # as cli's EXIT_INTERRUPTED
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
