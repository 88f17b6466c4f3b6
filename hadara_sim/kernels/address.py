"""A call to compiled code through its address, so that the caller does not link the callee in.

numba links every compiled function a function calls into its own module and has LLVM optimise
and emit the whole again: each of the engine's steps that asks the players (`ask`, the draw
rounds, the picks, the colony and statue steps, `play_epoch`) carried its own copy of every bot's
kernel, compiled once more for each (7 MB of machine code in numba's cache, loaded at every run).
Called through `call_at`, the kernels are compiled once, in their own library, and loaded only when
a batch seats a bot that uses them.

The caller passes the address with a checksum of the argument types it was compiled for
(`address_of`); `call_at` checks it against the types at the call site before calling, so a
mismatch is an error, never a call with the wrong arguments.
"""

from __future__ import annotations

import zlib

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def checksum(argument_types) -> int:
    """A number naming a tuple of numba argument types (the same in every process)."""
    return zlib.crc32(str(tuple(argument_types)).encode())


def address_of(dispatcher, argument_types) -> tuple[int, int]:
    """The address of `dispatcher` compiled for `argument_types` (loaded from numba's cache when it
    is there), and the types' checksum, for `call_at`."""
    argument_types = tuple(argument_types)
    dispatcher.compile(argument_types)
    compiled = dispatcher.overloads[argument_types]
    return compiled.library.get_pointer_to_function(compiled.fndesc.mangled_name), checksum(argument_types)


def type_key(value):
    """What numba's type of `value` is made of, cheaply: each array's dtype, dimensions, layout and
    flags, each tuple's class and items, else the Python type. (numba's `typeof` of a batch's
    namedtuples of arrays takes milliseconds: a key of the addresses, not a replacement of the
    types; a key that missed a difference would still be refused by `call_at`'s checksum.)"""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return value.dtype.str, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, flags.aligned
    if isinstance(value, tuple):
        return type(value), tuple(type_key(item) for item in value)
    return type(value)


_ADDRESSES: dict = {}  # (dispatcher, `type_key` of the arguments) -> (address, checksum), per process


def address_for(dispatcher, key, types) -> tuple[int, int]:
    """`address_of(dispatcher, types())` for calls with arguments of `type_key` `key`, remembered."""
    if (dispatcher, key) not in _ADDRESSES:
        _ADDRESSES[dispatcher, key] = address_of(dispatcher, types())
    return _ADDRESSES[dispatcher, key]


@intrinsic
def call_at(typingctx, address, check, arguments):
    """Call the compiled function at `address` (returning nothing) with the tuple `arguments`,
    after checking that `check` is the checksum of their types; its exceptions propagate."""
    expected = checksum(arguments.types)

    def codegen(context, builder, signature, values):
        at, given, packed = values
        with cgutils.if_unlikely(builder, builder.icmp_unsigned("!=", given, context.get_constant(types.int64, expected))):
            context.call_conv.return_user_exc(builder, RuntimeError, (
                "a compiled call's argument types differ from those its address was compiled for",))
        function = context.call_conv.get_function_type(types.none, arguments.types)
        callee = builder.inttoptr(at, function.as_pointer())
        parts = [builder.extract_value(packed, i) for i in range(len(arguments.types))]
        status, _ = context.call_conv.call_function(builder, callee, types.none, arguments.types, parts)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return context.get_dummy_value()

    return types.none(types.int64, types.int64, arguments), codegen
