"""Run inside GDB attached to a process (test_thread_walk.py): for every
thread, the plugin's own walk of its stack (native.ThreadWalks) against
GDB's frames, and whether it may lend itself to a call by each.  Prints
one line per thread:
  WALK <name> native=<frames or -> gdb=<frames> same=<yes|no|-> safe=<by native or ->/<by GDB>"""

import gdb

from gdb_collector import inferior_calls, native


def gdb_call_sites(thread):
    """GDB's frames as the native walk gives them: the leaf's PC, then each
    caller's return address - 1 (the interrupted PC itself above a signal
    frame); inline frames folded into the frame that holds them, and the
    frames GDB infers for tail calls (from the debug information's call
    sites: no frame of theirs is on the stack) left out."""
    thread.switch()
    sites, above_signal = [], False
    frame = gdb.newest_frame()
    while frame is not None:
        if frame.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            pc = frame.pc()
            sites.append(pc if not sites or above_signal else pc - 1)
            above_signal = frame.type() == gdb.SIGTRAMP_FRAME
        try:
            frame = frame.older()
        except gdb.error:
            break
    return sites


pid = gdb.selected_inferior().pid
_, libc, loader = native.process_kind(pid)
paths = set(inferior_calls._real(p) for p in (libc, loader) if p)
blocked = {t: inferior_calls._kernel_syscall(pid, t.ptid[1]) in inferior_calls.HARMLESS_SYSCALLS
           for t in gdb.selected_inferior().threads()}
with native.ThreadWalks(pid) as walks:
    for thread in sorted(blocked, key=lambda t: t.num):
        mine = walks.frames(thread.ptid[1])
        native_safe = "-"
        if mine is not None:
            frames = inferior_calls._native_frames(walks, thread)
            native_safe = inferior_calls.examine_thread(thread, blocked[thread], paths, (), (), frames).safe
        theirs = gdb_call_sites(thread)
        gdb_safe = inferior_calls.examine_thread(thread, blocked[thread], paths).safe
        same = "-" if mine is None else ("yes" if mine[:len(theirs)] == theirs else "no")
        gdb.write("WALK %s native=%s gdb=%d same=%s safe=%s/%s\n" % (
            thread.name, "-" if mine is None else len(mine), len(theirs), same, native_safe, gdb_safe))
        if same == "no":
            gdb.write("  native: %s\n  gdb:    %s\n" % (" ".join("%x" % p for p in mine), " ".join("%x" % p for p in theirs)))
