"""Runs PowerFS (../shared/tools/powerfs.py, read-only here) with one change: a read is
positional (`os.pread`), where PowerFS does `lseek` then `read` on the open file's shared
descriptor without its lock. Two FUSE READs of one open file in flight at once (the kernel's
readahead beside a read, on the daemon's threads) then interleave and return bytes from the
wrong offset: 189 of 1 200 concurrent 64 KiB reads of one descriptor came back wrong (the
likely cause of one CI run's segment finish reading its partial file short: "encoder
produced 27 packets for 30 frames"). The model itself, what reaches durable/ and when, is
PowerFS's own.

usage: /usr/bin/python3 powerfs_launcher.py POWERFS BACKING MOUNTPOINT"""
import importlib.util
import os
import sys


def main():
    powerfs_path, root, mountpoint = sys.argv[1:4]
    spec = importlib.util.spec_from_file_location("powerfs", powerfs_path)
    powerfs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(powerfs)

    class PositionalReads(powerfs.PowerFS):
        def read(self, path, size, offset, fh):
            return os.pread(fh, size, offset)

    # The options powerfs.py's own __main__ mounts with.
    powerfs.FUSE(PositionalReads(root), mountpoint, foreground=True, nothreads=False, allow_other=True,
                 default_permissions=False)


if __name__ == "__main__":
    main()
