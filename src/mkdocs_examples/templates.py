"""The site's templates rendered in a Jinja sandbox: a template shows data, it runs no code.

A template in ``overrides/`` comes from a pull request like an example does, and MkDocs renders
it in the builder's own process, outside the examples' sandbox. In MkDocs' environment
``{{ cycler.__init__.__globals__.os.popen('id').read() }}`` runs a shell command. :func:`sandboxed`
turns that environment into a :class:`TemplateSandbox` (Jinja's ``SandboxedEnvironment``) with
the same loader, filters, tests, globals, extensions, policies and settings, so that the theme's
templates render to the same bytes.

Jinja's sandbox refuses attributes that start with ``_`` and the internals of functions; on top of
it this one refuses what a MkDocs build puts within a template's reach:

- modules: MkDocs keeps each hook of ``hooks:`` in ``config.plugins`` as its module, so
  ``config.plugins['hooks/x.py'].os`` is the ``os`` module;
- calls to anything but Jinja's own helpers (macros, blocks, ``loop``, ``cycler``, ``joiner``,
  ``namespace``, ``range``, the environment's globals) and the methods of plain data (strings,
  numbers, lists, dicts, sets) and read-only mappings: ``config.theme.get_env()`` would hand back an
  environment without a sandbox, and any plugin's public method is Python code.

A refused template fails the build with :class:`TemplateRefused`, naming the template's file and line (the
MkDocs adapter passes a subclass that is MkDocs' ``PluginError`` too, since MkDocs renders the templates).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache, Environment, Template
from jinja2.bccache import Bucket
from jinja2.runtime import BlockReference, Context, LoopContext, Macro
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.utils import Cycler, Joiner, LRUCache, Namespace

from mkdocs_examples.results import SiteError

HELP = (
    "A template may show what the page and the configuration hold, and call macros, blocks, filters, "
    "loop, cycler, joiner, namespace, range and the methods of strings, lists and dicts; nothing else "
    '(README of mkdocs_examples, "Templates are sandboxed")'
)

_HELPERS = (Macro, BlockReference, LoopContext, Cycler, Joiner)  # Jinja's callable objects, and their methods
_DATA = (str, bytes, int, float, complex, bool, list, tuple, dict, set, frozenset)  # Markup is a str
_MAPPING_READS = frozenset({Mapping.get, Mapping.keys, Mapping.items, Mapping.values})
_FORMAT_WRAPPERS = tuple(
    c for c in SandboxedEnvironment.wrap_str_format.__code__.co_consts if isinstance(c, types.CodeType)
)
_INTERNALS = (types.ModuleType, Environment, Template, Context)  # never shown to a template, nor looked into


class TemplateRefused(SiteError):
    """A template did what the sandbox refuses; the message names its file and line."""


class _Keyed(BytecodeCache):
    """Another environment's bytecode cache, under keys of the sandbox's own.

    Jinja compiles a template for a sandbox to other code (each call goes through
    ``environment.call``): code compiled for MkDocs' own environment, loaded from the same cache
    under the same key, would call anything.
    """

    def __init__(self, inner: BytecodeCache) -> None:
        self.inner = inner

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return f"{self.inner.get_cache_key(name, filename)}-sandboxed"

    def load_bytecode(self, bucket: Bucket) -> None:
        self.inner.load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.inner.dump_bytecode(bucket)

    def clear(self) -> None:
        self.inner.clear()


class _SandboxCache:
    """``TemplateSandbox.bytecode_cache``: whatever cache a hook sets later is keyed apart (:class:`_Keyed`)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = f"_{name}"

    def __get__(self, env: Any, owner: type | None = None) -> BytecodeCache | None:
        return None if env is None else env.__dict__.get(self.name)

    def __set__(self, env: Any, cache: BytecodeCache | None) -> None:
        env.__dict__[self.name] = cache if cache is None or isinstance(cache, _Keyed) else _Keyed(cache)


class TemplateSandbox(SandboxedEnvironment):
    """Jinja's sandbox, with MkDocs' ways out closed (the module's docstring) and errors that name a line."""

    bytecode_cache = _SandboxCache()
    root = Path()  # templates under it are named relative to it in errors: the folder of mkdocs.yml
    refused: type[TemplateRefused] = TemplateRefused  # what a refused template raises

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, _INTERNALS) or isinstance(value, _INTERNALS):
            return False
        return super().is_safe_attribute(obj, attr, value)

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        # Jinja returns an undefined value that fails only when used; `{% if x.__class__ %}` would pass
        raise SecurityError(f"access to attribute {attribute!r} of a {type(obj).__name__!r} object is refused")

    def is_safe_callable(self, obj: Any) -> bool:
        return super().is_safe_callable(obj) and self._callable(obj)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if not __self.is_safe_callable(__obj):
            raise SecurityError(f"calling {_name(__obj)} is refused")
        return __context.call(__obj, *args, **kwargs)

    def _callable(self, obj: Any) -> bool:
        if isinstance(obj, _HELPERS) or any(obj is value for value in self.globals.values()):
            return True
        owner = getattr(obj, "__self__", None)
        if isinstance(obj, types.BuiltinMethodType):  # "a".startswith, {}.get; not os.popen (its owner is a module)
            return isinstance(owner, _DATA)
        if isinstance(obj, types.MethodType):
            if isinstance(owner, (*_HELPERS, Namespace)):  # loop.cycle, a cycler's next
                return True
            if isinstance(owner, str) and type(owner).__module__ == "markupsafe":  # Markup's own str methods
                return True
            return obj.__func__ in _MAPPING_READS  # a mapping that is no dict (MkDocs' config): get, keys...
        # the sandbox's own str.format, made by SandboxedEnvironment.wrap_str_format
        return isinstance(obj, types.FunctionType) and obj.__code__ in _FORMAT_WRAPPERS

    def handle_exception(self, source: str | None = None) -> Any:
        try:
            return super().handle_exception(source)
        except SecurityError as error:
            raise self.refused(
                f"{_where(error, self.root)}: refused by the template sandbox: {error}. {HELP}"
            ) from error


def sandboxed(env: Environment, root: Path, refused: type[TemplateRefused] = TemplateRefused) -> TemplateSandbox:
    """``env`` (MkDocs' ``theme.get_env()`` and what plugins added) as a :class:`TemplateSandbox`.

    Every setting is carried over as :meth:`jinja2.Environment.overlay` carries it, extensions bound
    to the new environment; the template cache starts empty (a template keeps the environment that
    compiled it), and the sandbox's own ``range`` replaces Python's, as ``SandboxedEnvironment`` does.
    """
    if isinstance(env, TemplateSandbox):
        return env
    if env.is_async:
        raise SiteError("the template sandbox does not support Jinja's async mode (enable_async)")
    sandbox: TemplateSandbox = object.__new__(TemplateSandbox)
    settings = dict(env.__dict__)
    cache = settings.pop("bytecode_cache", None)
    sandbox.__dict__.update(settings)
    sandbox.bytecode_cache = cache
    sandbox.root, sandbox.refused = root, refused
    sandbox.overlayed = False
    sandbox.linked_to = None
    sandbox.filters = dict(env.filters)
    sandbox.tests = dict(env.tests)
    sandbox.globals = dict(env.globals)
    sandbox.policies = dict(env.policies)
    sandbox.extensions = {key: extension.bind(sandbox) for key, extension in env.extensions.items()}
    sandbox.cache = _empty(env.cache)
    # what SandboxedEnvironment.__init__ adds to Environment.__init__
    plain = SandboxedEnvironment()
    sandbox.globals["range"] = plain.globals["range"]
    sandbox.binop_table = dict(plain.binop_table)
    sandbox.unop_table = dict(plain.unop_table)
    return sandbox


def _empty(cache: Any) -> Any:
    """A template cache like ``cache``, empty: Jinja's ``create_cache`` makes None, a dict or an LRUCache."""
    return None if cache is None else {} if isinstance(cache, dict) else LRUCache(cache.capacity)


def _where(error: BaseException, root: Path) -> str:
    """``overrides/main.html:3``: the innermost template line in the traceback Jinja rewrote for ``error``."""
    where = "a template"
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if "__jinja_exception__" in frame.f_globals:  # jinja2.debug.fake_traceback: a template's line
            name = Path(frame.f_code.co_filename)
            if name.is_absolute() and name.is_relative_to(root.resolve()):
                name = name.relative_to(root.resolve())
            where = f"{name.as_posix()}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _name(obj: Any) -> str:
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__qualname__
    if owner is not None and not isinstance(owner, types.ModuleType):
        return f"{type(owner).__qualname__}.{getattr(obj, '__name__', name)}()"
    module = getattr(obj, "__module__", None) or getattr(owner, "__name__", None)
    return f"{module}.{name}()" if module else f"{name}()"
