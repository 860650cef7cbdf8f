"""Part 8 of Scripts/bench: live streams copied as sent, like for like on 127.0.0.1.

One 1920x1080 30 fps H.264 (+ AAC) MPEG-TS clip (testsrc2, x264 veryfast, GOP 60; made once),
sent by N concurrent `ffmpeg -re -i CLIP -c copy -f mpegts udp://127.0.0.1:PORT` senders, each
received by one recorder of a pair run in the same invocation, level by level:

- segrec: `segrec record --copy --source udp://127.0.0.1:PORT --io-timeout 3` (a new file at a
  new size, crash-safe fragments, manifest);
- ffmpeg: `ffmpeg -i udp://127.0.0.1:PORT?timeout=3000000 -c copy -f segment -segment_time 3600
  -reset_timestamps 1 OUT/%03d.mp4` (FFmpeg's segment muxer, copying).

Both read the same protocol with libavformat's defaults (socket buffer, FIFO), so what UDP
loses under load is lost to either alike. Loss: video packets recorded against the clip's
(segrec: the manifest's `frames.written`; ffmpeg: `ffprobe -count_packets` of its files); a
side passes at N when every stream kept every packet. CPU per stream: each receiver's rusage
(os.wait4, its children included), CPU seconds and cores (CPU / its own wall). N = 1, 2, 4 run
for both sides; above 4 a side that lost a packet stops. The largest N is the largest with
every level up to it passed. Printed: `live copy streams per host: segrec N ffmpeg M`, and the
CPU ratio segrec/ffmpeg at each N both sides ran.

8b, the same senders recorded re-encoding: `segrec record --source udp://…` (no `--copy`) against
`ffmpeg -i udp://… -fps_mode passthrough -c:v libx264 … -c:a aac -f segment`, with part 6's encoder settings on both
sides (preset, CRF, GOP, threads): `live re-encoded streams per host: segrec N ffmpeg M`.
"""
import json
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import time

LIVE_LEVELS = (1, 2, 4, 8, 16)
LIVE_ALWAYS = 4
IO_TIMEOUT = 3  # seconds of silence that end a receiver once its sender stopped


def make_live_clip(path, seconds):
    """The senders' clip: testsrc2 1920x1080 30 fps H.264 (veryfast, GOP 60) and a 1 kHz tone in AAC, MPEG-TS."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i",
                    "sine=frequency=1000:sample_rate=48000", "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast", "-g", "60",
                    "-c:a", "aac", "-f", "mpegts", str(path)], check=True, capture_output=True)
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
                          "-of", "csv=p=0", str(path)], check=True, capture_output=True, text=True).stdout
    return int(out.split()[0])


def free_udp_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def bound_udp_ports():
    with open("/proc/net/udp") as table:
        return {int(line.split()[1].split(":")[1], 16) for line in table.readlines()[1:]}


def run_level(receivers, senders, ports, deadline_s):
    """Starts the receivers, waits until each has bound its port, starts the senders; waits for all.
    Returns [(wall s, cpu s)] of the receivers (own wall from their own start; rusage by os.wait4)."""
    starts, procs = [], []
    for cmd in receivers:
        starts.append(time.monotonic())
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    limit = time.monotonic() + 30
    while time.monotonic() < limit and not set(ports) <= bound_udp_ports():
        time.sleep(0.02)
    sending = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for cmd in senders]
    results = [None] * len(procs)
    pending = {p.pid: i for i, p in enumerate(procs)}
    others = {p.pid for p in sending}
    end = time.monotonic() + deadline_s
    while pending or others:
        if time.monotonic() > end:
            for p in procs + sending:
                if p.poll() is None:
                    p.kill()
        pid, status, usage = os.wait4(-1, 0)
        if pid in pending:
            i = pending.pop(pid)
            results[i] = (time.monotonic() - starts[i], usage.ru_utime + usage.ru_stime)
        others.discard(pid)
    return results


def ffmpeg_packets(folder):
    total = 0
    for f in sorted(pathlib.Path(folder).glob("*.mp4")):
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
                              "-of", "csv=p=0", str(f)], capture_output=True, text=True).stdout.split()
        total += int(out[0]) if out and out[0].isdigit() else 0
    return total


def live_pairs(segrec, tmp, quick, table, rec=(), enc=()):
    """Part 8; returns (segrec largest N, ffmpeg largest N, {N: (segrec cpu/stream, ffmpeg cpu/stream)}) for the copying
    pair, then prints 8b, the re-encoding pair (`rec` / `enc`: the encoder settings both sides use, as in part 6)."""
    seconds = 5 if quick else 20
    clip = tmp / "live.ts"
    packets = make_live_clip(clip, seconds)
    copy = run_pair(segrec, tmp, clip, packets, seconds, table, ["--copy"], ["-c", "copy"], "copied as sent",
                    "`segrec record --copy --source udp://…` against `ffmpeg -i udp://… -c copy -f segment`")
    print(f"live copy streams per host: segrec {copy[0]} ffmpeg {copy[1]}")
    again = run_pair(segrec, tmp, clip, packets, seconds, table, list(map(str, rec)), ["-fps_mode", "passthrough", "-c:v", "libx264", *map(str, enc), "-c:a", "aac"],
                     "re-encoded (8b)", "`segrec record --source udp://…` (re-encoding, same preset, CRF, GOP, threads as part 6) against "
                     "`ffmpeg -i udp://… -c:v libx264 … -f segment`")
    print(f"live re-encoded streams per host: segrec {again[0]} ffmpeg {again[1]}")
    return copy, again


def run_pair(segrec, tmp, clip, packets, seconds, table, segrec_args, ffmpeg_args, what, described):
    deadline = seconds + 60

    def senders(ports):
        return [["ffmpeg", "-v", "error", "-re", "-i", str(clip), "-c", "copy", "-f", "mpegts", f"udp://127.0.0.1:{p}?pkt_size=1316"] for p in ports]

    def segrec_side(n):
        ports = free_udp_ports(n)
        outs = [tmp / f"live-segrec{n}-{k}" for k in range(n)]
        res = run_level([[str(segrec), "record", *segrec_args, "--source", f"udp://127.0.0.1:{p}", "--io-timeout", str(IO_TIMEOUT),
                          # the sender's end ends the recording, as ffmpeg's (a live source, copied or
                          # re-encoded, is reconnected for 30 s by default)
                          "--reconnect-for", "0",
                          "--output", str(o), "--quiet", "--force"] for p, o in zip(ports, outs)], senders(ports), ports, deadline)
        per = []
        for o, (wall, cpu) in zip(outs, res):
            try:
                written = json.loads((o / "manifest.json").read_text())["frames"]["written"]
            except (OSError, ValueError, KeyError):
                written = 0
            per.append(dict(wall=wall, cpu=cpu, kept=written))
            shutil.rmtree(o, ignore_errors=True)
        return per

    def ffmpeg_side(n):
        ports = free_udp_ports(n)
        outs = [tmp / f"live-ffmpeg{n}-{k}" for k in range(n)]
        for o in outs:
            o.mkdir(parents=True, exist_ok=True)
        res = run_level([["ffmpeg", "-v", "error", "-y", "-i", f"udp://127.0.0.1:{p}?timeout={IO_TIMEOUT * 1_000_000}", "-map", "0", *ffmpeg_args,
                          "-f", "segment", "-segment_time", "3600", "-reset_timestamps", "1", str(o / "%03d.mp4")] for p, o in zip(ports, outs)],
                        senders(ports), ports, deadline)
        per = []
        for o, (wall, cpu) in zip(outs, res):
            per.append(dict(wall=wall, cpu=cpu, kept=ffmpeg_packets(o)))
            shutil.rmtree(o, ignore_errors=True)
        return per

    sides = {"segrec": segrec_side, "ffmpeg": ffmpeg_side}
    failed = {s: False for s in sides}
    best = {s: 0 for s in sides}
    runs = {s: {} for s in sides}
    for level, n in enumerate(LIVE_LEVELS):
        order = list(sides) if level % 2 == 0 else list(sides)[::-1]
        for side in order:
            if failed[side] and n > LIVE_ALWAYS:
                continue
            per = sides[side](n)
            runs[side][n] = per
            if all(s["kept"] >= packets for s in per):  # a duplicated picture is no loss
                if not failed[side]:
                    best[side] = n
            else:
                failed[side] = True

    rows = [["N", "segrec pictures kept (min of N)", "cpu s/stream", "cores/stream", "ffmpeg pictures kept (min of N)", "cpu s/stream",
             "cores/stream", "cpu segrec/ffmpeg"]]
    cpu = {}
    for n in LIVE_LEVELS:
        seg, ff = runs["segrec"].get(n), runs["ffmpeg"].get(n)
        if not (seg or ff):
            continue
        row = [n]
        for per in (seg, ff):
            if per:
                row += [f"{min(s['kept'] for s in per)}/{packets}", f"{statistics.mean(s['cpu'] for s in per):.2f}",
                        f"{statistics.mean(s['cpu'] / s['wall'] for s in per):.3f}"]
            else:
                row += ["-"] * 3
        if seg and ff:
            cpu[n] = (statistics.mean(s["cpu"] for s in seg), statistics.mean(s["cpu"] for s in ff))
            row.append(f"{cpu[n][0] / cpu[n][1]:.2f}" if cpu[n][1] > 0 else "-")
        else:
            row.append("-")
        rows.append(row)
    print(f"\n8. Live streams {what}, like for like on 127.0.0.1: N concurrent `ffmpeg -re -i CLIP -c copy -f mpegts udp://…` senders "
          f"(1920x1080 30 fps H.264 + AAC, {seconds} s, {packets} pictures) recorded by {described}, the two sides alternating per level")
    print(f"   a side passes at N when every stream kept all {packets} pictures (segrec: manifest frames.written; ffmpeg: "
          f"ffprobe -count_packets of its files); cpu = rusage of each receiver (os.wait4), cores = that / its wall "
          f"(which includes up to {IO_TIMEOUT} s of waiting after the sender stops); '-' = not run")
    print(table(rows))
    return best["segrec"], best["ffmpeg"], cpu


def live_ratio_text(copy, again):
    def text(name, pair):
        seg_n, ff_n, cpu = pair
        ratios = " ".join(f"N={n} {s / f:.2f}" for n, (s, f) in sorted(cpu.items()) if f > 0)
        return f"live {name} streams per host: segrec {seg_n} ffmpeg {ff_n}, cpu/stream segrec/ffmpeg {ratios or '-'}"
    return f"{text('copy', copy)}, {text('re-encoded', again)}"
