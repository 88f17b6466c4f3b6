"""The `hadara-sim` command line: a thin layer over the library, one module per command group."""

import re
import signal
import sys
import threading

# A Ctrl-C while the command line starts (imports take a second or two) stops it at once: there is
# nothing to clean up yet, and no traceback to print. The usual KeyboardInterrupt is back below.
# (Not in an interactive session or a notebook kernel, which a Ctrl-C must not end.)
_STARTING = (threading.current_thread() is threading.main_thread() and not hasattr(sys, "ps1")
             and "ipykernel" not in sys.modules and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
if _STARTING:
    signal.signal(signal.SIGINT, signal.SIG_DFL)

import importlib  # noqa: E402
from collections.abc import Mapping  # noqa: E402

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402
from typer.models import TyperPath  # noqa: E402

# Each command's module, in the order `--help` lists them: a command group's module has a Typer `app`,
# a single command's a `register(app)`. A module is imported only when its command runs or help lists
# the commands, so a run pays for its own command's imports, not for every group's (issue 33).
COMMANDS = {"play": "play", "show-game": "show_game", "verify": "verify", "bench": "bench", "simulate": "simulate",
            "components": "components", "policies": "policies", "report": "report", "balance": "balance"}


def _tidy(command) -> None:
    """Help without type placeholders: flags show none, repeatable options say what they take."""
    for param in command.params:
        if getattr(param, "param_type_name", "") == "option":
            if param.is_flag or param.count:
                param.metavar = ""
            elif param.multiple:
                param.metavar = "<int>..." if "int" in param.type.name else "<text>..."
    make_help_option = command.get_help_option

    def get_help_option(ctx):
        option = make_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


class _GivenPath(TyperPath):
    """A path parameter that refuses an empty text: pathlib reads "" as the current folder, and `--out "$DIR"`
    with DIR unset wrote a run's files (or a report's charts) among whatever was there."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value:
            self.fail("is empty (an unset shell variable?); give a path ('.' names the current folder)", param, ctx)
        return super().convert(value, param, ctx)


def _given_paths(command) -> None:
    """Every path parameter of `command` and its subcommands a _GivenPath."""
    for param in command.params:
        if type(param.type) is TyperPath:
            param.type.__class__ = _GivenPath
    for sub in getattr(command, "commands", {}).values():
        _given_paths(sub)


class _Commands(Mapping):
    """The root's commands by name, each built from its module on first use (see COMMANDS), after
    any registered on `app` itself (`built`)."""

    def __init__(self, built: dict):
        self._built = dict(built)

    def __getitem__(self, name):
        if name not in COMMANDS and name not in self._built:
            raise KeyError(name)
        if name not in self._built:
            module = importlib.import_module(f"{__name__}.{COMMANDS[name]}")
            holder = typer.Typer(rich_markup_mode=app.rich_markup_mode, pretty_exceptions_enable=False)
            if hasattr(module, "register"):
                module.register(holder)
            else:
                holder.add_typer(module.app, name=name)
            command = typer.main.get_group(holder).commands[name]
            _tidy(command)
            _given_paths(command)
            self._built[name] = command
        return self._built[name]

    def __iter__(self):
        return iter({**dict.fromkeys(COMMANDS), **dict.fromkeys(self._built)})

    def __len__(self):
        return len(set(COMMANDS) | set(self._built))


class _Root(TyperGroup):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _tidy(self)
        _given_paths(self)
        self.commands = _Commands(self.commands)

    def invoke(self, ctx):
        """Run the command; a Ctrl-C it did not tell of is carried past typer to main(), which says
        "interrupted" (typer turns a KeyboardInterrupt into a silent exit 130)."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as err:
            raise _Untold("interrupted") from err


class _Untold(Exception):
    """A Ctrl-C on its way to main(), past typer (see _Root.invoke)."""


def _version(value: bool):
    if value:
        from .. import __version__

        typer.echo(f"hadara-sim {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=_Root,
    help="Monte Carlo strategy analysis for the board game Hadara.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _main(version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    """Monte Carlo strategy analysis for the board game Hadara."""



if _STARTING:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# Python's cyclic garbage collector runs every 700 new objects, and each of its full passes walks every
# object alive: a start imports numba, numpy and the engine (about 120,000 long-lived objects, no
# garbage), then at exit the interpreter collects everything once more. Measured on a 100-game
# `simulate` (issue 33): 0.15-0.2 CPU s of collections during the start and 0.3-0.4 s at exit, of about
# 1.5 s. So the command collects every GC_EVERY new objects (cyclic garbage still freed, in bigger
# steps: a long run's memory stays bounded), and exits without a last collection (`gc.freeze` at exit: what
# is alive then is left to the operating system: the package writes its files in `with` blocks, and
# the standard streams are flushed and atexit handlers run as before).
GC_EVERY = 100_000


def main():
    """The `hadara-sim` command: a Ctrl-C exits 130, an unexpected error one line and 1."""
    import atexit
    import errno
    import gc
    import os
    import warnings

    threshold = gc.get_threshold()
    gc.set_threshold(GC_EVERY, *threshold[1:])
    atexit.register(gc.freeze)  # at the process's exit (a test calling main() keeps its own collector)
    from ..invocation import program
    from ..signals import remembering_ctrl_c

    if sys.stdout is None:  # started with stdout closed (`>&-`): what it prints is dropped, as print() drops it
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (open for the life of the process)
    problem = _numba_threads_problem(os.environ.get("NUMBA_NUM_THREADS")) or _numba_jit_problem(
        os.environ.get("NUMBA_DISABLE_JIT"))
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        sys.exit(2)
    _drop_unreadable_sizes(os.environ)
    # numba reads its environment variables when it is imported, and one it cannot read was a warning
    # with numba's traceback, then ignored: raised instead, and told by `_unreadable_numba_variable`
    warnings.filterwarnings("error", category=RuntimeWarning, module="numba.core.config")
    try:
        with remembering_ctrl_c():
            # click's own lines ("Usage:", "Try '... -h' for help") name the program as every hint does:
            # by its file name they said `hadara-sim`, which after `make demo` is on no PATH
            try:
                app(prog_name=program())
            finally:
                _stop_workers()
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:
        if _caused_by_ctrl_c(err):
            print("\ninterrupted", file=sys.stderr)
            sys.exit(130)
        if os.environ.get("HADARA_SIM_DEBUG"):
            raise
        told = _unwritable_output(err) or _unreadable_numba_variable(err)
        if told:
            print(f"error: {told}", file=sys.stderr)
            sys.exit(2)
        deal = sys.modules.get("hadara_sim.deal")
        if deal is not None and isinstance(err, deal.TooManyDeals):  # ladder --games 10**12 (its range's top)
            print(f"error: {err}; give a smaller --games (these games are dealt at once), then run again",
                  file=sys.stderr)
            sys.exit(2)
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):  # the disk's state, not a defect
            print(f"error: cannot write: {err.strerror} (output, results or charts are incomplete); free some "
                  "space, then run again", file=sys.stderr)
            sys.exit(1)
        # A policy's own failure, named by it, is not ours to report (its module is loaded by then;
        # not imported here, where numpy itself may be what failed).
        policy = sys.modules.get("hadara_sim.policy")
        if policy is not None and isinstance(err, policy.IllegalChoice):
            print(f"error: {err}; fix the policy, then run again", file=sys.stderr)
            sys.exit(1)
        print(f"error: unexpected {type(err).__name__}: {err} (set HADARA_SIM_DEBUG=1 for the traceback, "
              "and please report it)", file=sys.stderr)
        sys.exit(1)
    finally:
        gc.set_threshold(*threshold)


def _stop_workers() -> None:
    """Stop the worker processes a command started (loky's reusable executor) while a Ctrl-C is still
    this command's "interrupted": left to the interpreter's exit, loky joins them in a handler of its
    own, and a Ctrl-C pressed as a run ended printed "Exception ignored ... KeyboardInterrupt" with a
    traceback, and the command exited 0. Idle by now, they are killed rather than asked to stop."""
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(reusable, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def _unwritable_output(err: BaseException) -> str | None:
    """What to do when the terminal's or file's encoding cannot write what a command prints (a table's
    ▲ or ± under PYTHONIOENCODING=ascii, a Latin-1 locale, or Windows' cp1252 into a file):
    that was "unexpected UnicodeEncodeError ... please report it", exit 1. In ASCII, as the stream takes."""
    import codecs

    if not isinstance(err, UnicodeEncodeError):
        return None
    streams = set()
    for stream in (sys.stdout, sys.stderr):
        try:
            streams.add(codecs.lookup(stream.encoding).name)
        except (AttributeError, TypeError, LookupError):
            pass
    try:
        encoding = codecs.lookup(err.encoding).name
    except LookupError:
        return None
    if encoding not in streams:  # not the output's: a file the command writes, say
        return None
    char = err.object[err.start] if isinstance(err.object, str) and err.start < len(err.object) else "?"
    return (f"the output's encoding ({encoding}) cannot write {ascii(char)} (U+{ord(char):04X}): set "
            "PYTHONIOENCODING=utf-8 (or a UTF-8 locale, e.g. LANG=C.UTF-8), then run again")


def _drop_unreadable_sizes(environ) -> None:
    """Ignore a COLUMNS or LINES that is no number, as rich ignores 'abc': it reads them with str.isdigit(),
    which holds for '²', and int() then failed ("unexpected ValueError")."""
    from ..problems import ascii_whole

    for name in ("COLUMNS", "LINES"):
        if name in environ and ascii_whole(environ[name]) is None:
            del environ[name]


def _numba_threads_problem(value: str | None) -> str | None:
    """What is wrong with the environment's NUMBA_NUM_THREADS, read by numba when it is imported: 0 or
    less stopped that import ("unexpected ValueError: Number of threads specified must be > 0", exit 1),
    and a value that is no number printed numba's warning with a traceback, then ran on all cores."""
    if value is None:
        return None
    try:
        threads = int(value)
    except ValueError:
        threads = None
    if threads is not None and threads >= 1:
        return None
    return (f"the environment variable NUMBA_NUM_THREADS is {value!r}: numba takes a whole number of threads, 1 "
            "or more; set it to one (e.g. NUMBA_NUM_THREADS=1), or unset it (`unset NUMBA_NUM_THREADS`)")


def _numba_jit_problem(value: str | None) -> str | None:
    """What is wrong with the environment's NUMBA_DISABLE_JIT: a number other than 0 turns numba's compiler
    off, and the engine's functions, compiled to call each other, stopped in "unexpected TypeError:
    __class__ assignment only supported for mutable types" (a value that is no number: see
    `_unreadable_numba_variable`)."""
    try:
        if value is None or int(value) == 0:
            return None
    except ValueError:
        return None
    return (f"the environment variable NUMBA_DISABLE_JIT is {value!r}: hadara-sim runs only as numba's compiled "
            "code, not with its compiler off; unset it (`unset NUMBA_DISABLE_JIT`), or set it to 0")


def _unreadable_numba_variable(err: BaseException) -> str | None:
    """What to do about a numba environment variable numba cannot read (NUMBA_OPT=9, NUMBA_DEBUG=yes), from
    numba's warning raised as an error (see main)."""
    said = re.match(r"Environment variable '(\w+)' is defined but its associated value '(.*?)' could not",
                    str(err), re.S)
    if not isinstance(err, RuntimeWarning) or not said:
        return None
    name, value = said.groups()
    why = str(err).strip().splitlines()[-1].partition(": ")[2]
    why = "numba takes a whole number for it" if why.startswith("invalid literal for int()") else why
    return (f"the environment variable {name} is {value!r}, which numba cannot read ({why}); correct it, or "
            f"unset it (`unset {name}`)")


def _caused_by_ctrl_c(err: BaseException) -> bool:
    """Whether a Ctrl-C is behind `err`: a compiled extension interrupted while it is imported
    reports the KeyboardInterrupt as the cause of an ImportError ("initialization failed"). A context
    suppressed (`raise ... from None`) is not behind it: a policy's own KeyboardInterrupt, named by the
    PolicyError raised in its place, was taken for a Ctrl-C."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or (None if err.__suppress_context__ else err.__context__)
    return False
