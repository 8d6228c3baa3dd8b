"""What a program file's dynamic symbol table says of a symbol: whether
it defines it or takes it from a shared library.  Read from the file
(64-bit little-endian ELF, x86_64's), without GDB's symbol reading: a
setting is checked before the program runs."""

import struct

SHT_DYNSYM = 11
SHN_UNDEF = 0


def dynamic_symbol(path, name):
    """'defined' when the program file PATH defines NAME in its dynamic
    symbol table, 'imported' when it refers to it there, 'absent' when it
    does neither; None when the file cannot be read as ELF."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    try:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        want = name.encode()
        for sh_name, sh_type, _, _, offset, size, link, _, _, entsize in sections:
            if sh_type != SHT_DYNSYM or entsize < 24 or link >= len(sections):
                continue
            strtab = sections[link][4]
            for at in range(offset + entsize, offset + size, entsize):
                st_name, _, _, st_shndx = struct.unpack_from("<IBBH", data, at)
                end = data.index(b"\0", strtab + st_name)
                if data[strtab + st_name:end] == want:
                    return "imported" if st_shndx == SHN_UNDEF else "defined"
        return "absent"
    except (struct.error, ValueError):
        return None


PT_INTERP = 3


def statically_linked(path):
    """True when the program file PATH is an ELF executable with no
    dynamic loader (PT_INTERP): nothing can be preloaded into it.  False
    otherwise, also when the file cannot be read as ELF."""
    try:
        with open(path, "rb") as f:
            header = f.read(64)
            if len(header) < 64 or header[:4] != b"\x7fELF" or header[4] != 2:
                return False
            phoff, = struct.unpack_from("<Q", header, 32)
            phentsize, phnum = struct.unpack_from("<HH", header, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return False
    types = [struct.unpack_from("<I", table, i * phentsize)[0] for i in range(len(table) // phentsize)]
    return PT_INTERP not in types
