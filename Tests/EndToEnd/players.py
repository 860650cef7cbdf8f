"""Reading exports back with real players (issue 46): mpv (every decoded frame through
FFmpeg's showinfo filter, logged by mpv), VLC 3's cvlc (what it reads, remuxed by its own
stream output into Matroska, then decoded by ffprobe; or every picture its libavcodec
decoder decodes, logged by libavcodec) and GStreamer's playbin (every buffer its video
sink receives).

VLC refuses to run as root: as root the tests run it as `nobody` (runuser), so its inputs
and outputs live in a world-readable folder under /tmp (`shared_folder`), not in pytest's
private tmp_path."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

needs_mpv = pytest.mark.skipif(shutil.which("mpv") is None, reason="mpv is not installed (Scripts/install-deps --test)")
needs_vlc = pytest.mark.skipif(shutil.which("cvlc") is None, reason="cvlc is not installed (Scripts/install-deps --test: vlc-bin, vlc-plugin-base)")
needs_gst = pytest.mark.skipif(shutil.which("gst-launch-1.0") is None,
                               reason="gst-launch-1.0 is not installed (Scripts/install-deps --test)")


def shared_folder(prefix):
    """A new folder under /tmp every user may read and write (VLC runs as nobody when we are root)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o777)
    return folder


def open_to_all(folder):
    """Makes everything under `folder` readable (and its folders writable) by every user."""
    for root, dirs, files in os.walk(folder):
        os.chmod(root, 0o777)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)


def mpv_frame_sizes(path, *options, timeout=300):
    """(width, height) of every frame mpv decodes from `path` (no output, untimed), in order,
    and mpv's log: FFmpeg's showinfo filter logs each one."""
    run = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", "--vf=lavfi=[showinfo]",
                          "--msg-level=all=warn,ffmpeg=v", "--term-status-msg=", *options, str(path)],
                         capture_output=True, text=True, timeout=timeout)
    log = run.stdout + run.stderr
    sizes = [(int(w), int(h)) for w, h in re.findall(r"showinfo_\d+: n: *\d+ .*? s:(\d+)x(\d+) ", log)]
    return sizes, log


def vlc_command():
    """cvlc, as nobody when we are root (VLC refuses root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "nobody", "--", "cvlc"]
    return ["cvlc"]


def vlc_remuxed_sizes(source, folder, timeout=300):
    """(width, height) of every frame VLC 3 reads from `source` (a file or playlist inside
    `folder`, a shared_folder): cvlc's stream output remuxes what its demuxer delivers into
    Matroska (no decoding, no clock), which ffprobe then decodes. Also returns VLC's log."""
    out = pathlib.Path(folder) / "vlc-out.mkv"
    if out.exists():
        out.unlink()
    home = pathlib.Path(folder) / "vlc-home"
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = dict(os.environ, HOME=str(home))
    run = subprocess.run([*vlc_command(), "-q", "--play-and-exit", "--no-audio", str(source),
                          "--sout", f"#std{{access=file,mux=mkv,dst={out}}}"],
                         capture_output=True, text=True, timeout=timeout, env=env)
    log = run.stdout + run.stderr
    if not out.exists():
        return [], log
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height",
                            "-of", "csv=p=0", str(out)], capture_output=True, text=True, timeout=timeout)
    sizes = [tuple(int(x) for x in line.split(",")[:2]) for line in probe.stdout.splitlines()
             if re.match(r"\d+,\d+", line)]
    return sizes, log


VLC_NO_LATE_DROPS = ["--no-avcodec-hurry-up", "--avcodec-skip-frame=0", "--no-drop-late-frames", "--no-skip-frames"]


def vlc_decoded_frames(source, folder, *options, timeout=300):
    """How many H.264 pictures cvlc's decoder (libavcodec) decodes while it plays `source` (a
    file or playlist inside `folder`, a shared_folder) at its own pace with no picture or
    sound output, and cvlc's log. `--avcodec-debug=1` (FF_DEBUG_PICT_INFO) makes libavcodec
    log every slice it decodes (`slice:1 F mb:0 I … frame:0 …`), and `-vvv` lets VLC pass
    libavcodec's debug level through: a picture is counted once, by its slice that starts
    at macroblock 0, however many slices it has.
    VLC's decoder skips pictures it finds late (hurry-up) on a busy machine unless told not
    to (VLC_NO_LATE_DROPS, given by default); its video output also drops the pictures
    queued ahead at every size change of any input (a plain MPEG-TS file too), which is why
    this counts decoded pictures, not shown ones."""
    home = pathlib.Path(folder) / "vlc-home"
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = dict(os.environ, HOME=str(home))
    run = subprocess.run([*vlc_command(), "-vvv", "--play-and-exit", "--vout=dummy", "--aout=dummy", "--avcodec-debug=1",
                          *(options or VLC_NO_LATE_DROPS), str(source)], capture_output=True, text=True, timeout=timeout, env=env)
    log = run.stdout + run.stderr
    # Not anchored to libavcodec's `[h264 @ 0x…] ` prefix: another thread's line may come
    # between that prefix and its message on stderr.
    return len(re.findall(r"slice:\d+ \S+ mb:0 ", log)), log


def playbin_frames(playlist, timeout=120):
    """Buffers GStreamer's playbin hands its video sink (a fakesink, with clock sync) while it
    plays `playlist` to its end, the exit code and the log (gst-launch-1.0 -v prints a
    `last-message = chain` line per buffer)."""
    run = subprocess.run(["gst-launch-1.0", "-v", "playbin", f"uri=file://{playlist}",
                          "video-sink=fakesink name=vs sync=true silent=false", "audio-sink=fakesink sync=true"],
                         capture_output=True, text=True, timeout=timeout)
    return run.stdout.count("vs: last-message = chain"), run.returncode, run.stdout[-2000:] + run.stderr[-2000:]


def runs(sizes):
    """[(size, count), …] of consecutive equal sizes."""
    out = []
    for size in sizes:
        if out and out[-1][0] == size:
            out[-1][1] += 1
        else:
            out.append([size, 1])
    return [tuple(x) for x in out]


MPV_ROTATION_SCRIPT = """
mp.observe_property("video-params", "native", function(name, v)
  if v and v.rotate ~= nil then mp.msg.warn(string.format("PARAMS %d %d %d", v.w, v.h, v.rotate)) end
end)
"""


def mpv_turns(path, folder, timeout=300):
    """[(width, height, rotate), …]: mpv's video parameters each time they change while it
    plays `path` (`rotate` is the clockwise turn mpv applies to the decoded picture), and its log."""
    script = pathlib.Path(folder) / "turns.lua"
    script.write_text(MPV_ROTATION_SCRIPT)
    run = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", f"--script={script}",
                          "--msg-level=all=warn", str(path)], capture_output=True, text=True, timeout=timeout)
    log = run.stdout + run.stderr
    changes = [tuple(int(x) for x in m) for m in re.findall(r"PARAMS (\d+) (\d+) (\d+)", log)]
    return [c for i, c in enumerate(changes) if i == 0 or changes[i - 1] != c], log
