"""Shared helpers of the end-to-end tests (Tests/EndToEnd): running commands, reading files
back with ffprobe / ffmpeg / mediainfo, loading manifests (each validated against
Docs/manifest.schema.json) and the exact-time arithmetic the checks use."""
import hashlib
import json
import pathlib
import subprocess
from fractions import Fraction

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SAMPLE_STREAMS = ROOT / "SampleStreams"
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "samples"
CASES = SHARED / "cases"
PHONE = SAMPLES / "phone_portrait_rot90_1920x1080_30fps.mp4"
PARK = SAMPLES / "park_joy_160x90_50fps.y4m"
BUS = SAMPLES / "bus_352x288_i420_30fps.yuv"
SCHEMA_PATH = ROOT / "Docs" / "manifest.schema.json"


def run(args, **kw):
    """Runs a command, capturing its output as text (unless `text=False` is given)."""
    kw.setdefault("text", True)
    return subprocess.run([str(a) for a in args], capture_output=True, **kw)


# ---- the manifest and its schema ----

_validator = None


def manifest_validator():
    global _validator
    if _validator is None:
        import jsonschema
        schema = json.loads(SCHEMA_PATH.read_text())
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _validator = cls(schema)
    return _validator


def manifest_errors(manifest):
    """Every way `manifest` breaks Docs/manifest.schema.json, as short strings."""
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
            for e in sorted(manifest_validator().iter_errors(manifest), key=lambda e: list(map(str, e.absolute_path)))]


def validate_manifest(manifest, where="manifest"):
    errors = manifest_errors(manifest)
    assert not errors, f"{where} does not match Docs/manifest.schema.json: " + "; ".join(errors[:10])
    return manifest


def load_manifest(folder):
    """`folder`/manifest.json, parsed and validated against the schema."""
    path = pathlib.Path(folder) / "manifest.json"
    return validate_manifest(json.loads(path.read_text()), str(path))


def manifest_from_stdout(stdout, where="record --json"):
    """The manifest `record --json` printed, validated; None when nothing (or no JSON) came."""
    if not stdout.strip():
        return None
    try:
        m = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    return validate_manifest(m, where)


# ---- reading files back ----

def ffprobe_frames(path):
    """Every decoded frame's width, height and key flag, by ffprobe."""
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
               "frame=width,height,key_frame", "-of", "json", str(path)])
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)["frames"]


def top_level_boxes(path):
    """The types of the MP4's top-level boxes, in order (ffprobe's trace)."""
    trace = run(["ffprobe", "-v", "trace", str(path)]).stderr
    return [line.split("type:'")[1].split("'")[0] for line in trace.splitlines() if "parent:'root'" in line]


def rotation_of(path):
    """ffprobe's display-matrix rotation of the first video stream, or None."""
    probed = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                  "-of", "json", str(path)])
    found = [d.get("rotation") for st in json.loads(probed.stdout or "{}").get("streams", [])
             for d in st.get("side_data_list", []) if "rotation" in d]
    return found[0] if found else None


def frame_rate_of(path):
    # side data (rotation) adds a field
    return run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate",
                "-of", "csv=p=0", str(path)]).stdout.strip().split(",")[0]


def decode_stamps(raw, sizes):
    """The 32-bit code of each frame in `raw` (gray rows cropped to 16 per frame, `sizes` their
    (width, height)): rows 4-11, middle half of each of 32 blocks of width W//32, threshold 128
    (DESIGN 'Synthetic frames carry their index'). Returns (codes, bytes consumed)."""
    codes, offset = [], 0
    for width, _ in sizes:
        frame = raw[offset:offset + width * 16]
        offset += width * 16
        if len(frame) < width * 16:
            codes.append(None)
            continue
        block, value = width // 32, 0
        for bit in range(32):
            x0 = bit * block + block // 4
            cols = range(x0, x0 + max(1, block // 2))
            total = sum(frame[row * width + x] for row in range(4, 12) for x in cols)
            value = (value << 1) | (1 if total / (8 * len(cols)) >= 128 else 0)
        codes.append(value)
    return codes, offset


def read_stamps(input_args):
    """Decodes `input_args` (e.g. ["-i", "x.m3u8"]) with ffmpeg and returns (sizes, indices, whole):
    every frame's size (ffprobe) and frame-index stamp (rows 0-15), and whether the raw output
    was consumed exactly."""
    probe = run(["ffprobe", "-v", "error", *[a for a in input_args if a != "-i"][:-1], "-select_streams", "v:0",
                 "-show_entries", "frame=width,height", "-of", "csv=p=0", input_args[-1]])
    sizes = [tuple(int(v) for v in line.split(",")[:2]) for line in probe.stdout.split() if line.strip()]
    raw = subprocess.run(["ffmpeg", "-v", "error", *input_args, "-autoscale", "0", "-fps_mode", "passthrough",
                          "-vf", "crop=iw:16:0:0", "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True).stdout
    indices, offset = decode_stamps(raw, sizes)
    return sizes, indices, offset == len(raw)


def stored_stamps(path):
    """(sizes, frame-index stamps) of every frame of one file as stored (-noautorotate: a file
    whose display matrix turns it keeps its stamp in the stored picture), by ffprobe/ffmpeg;
    fails unless ffmpeg's raw output is consumed exactly."""
    sizes = [(f["width"], f["height"]) for f in ffprobe_frames(path)]
    raw = run(["ffmpeg", "-v", "error", "-noautorotate", "-i", path, "-autoscale", "0", "-fps_mode", "passthrough",
               "-vf", "crop=iw:16:0:0", "-f", "rawvideo", "-pix_fmt", "gray", "-"], text=False).stdout
    indices, used = decode_stamps(raw, sizes)
    assert used == len(raw), f"{path}: {len(raw) - used} bytes of ffmpeg's output left over"
    return sizes, indices


def duo_camera_codes(path):
    """The camera code (stamp rows 16-31, same code as the index) of every frame, by ffmpeg."""
    sizes = [tuple(int(v) for v in line.split(",")[:2]) for line in run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height", "-of", "csv=p=0",
         str(path)]).stdout.split() if line.strip()]
    # -noautorotate: the stamp is in the stored picture; a rotated file (the back camera's
    # display matrix) would otherwise be turned before the crop.
    raw = subprocess.run(["ffmpeg", "-v", "error", "-noautorotate", "-i", str(path), "-autoscale", "0", "-fps_mode",
                          "passthrough", "-vf", "crop=iw:16:0:16", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True).stdout
    codes, offset = [], 0
    for width, _ in sizes:
        frame = raw[offset:offset + width * 16]
        offset += width * 16
        block, value = width // 32, 0
        for bit in range(32):
            x0 = bit * block + block // 4
            cols = range(x0, x0 + max(1, block // 2))
            total = sum(frame[row * width + x] for row in range(4, 12) for x in cols) if len(frame) == width * 16 else 0
            value = (value << 1) | (1 if total / (8 * len(cols)) >= 128 else 0)
        codes.append(value)
    return codes


def count_frames(path):
    """ffprobe -count_frames: nb_read_frames of the first video stream, -1 when unreadable."""
    out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
               "stream=nb_read_frames", "-of", "csv=p=0", str(path)])
    return int((out.stdout.split(",")[0].strip() or "-1"))


# ---- exact times ----

def t(m):
    """A manifest MediaTime as an exact Fraction of seconds."""
    return Fraction(m["value"], m["timescale"])


def exact_duration(seg):
    return t(seg["sessionEnd"]) - t(seg["sessionStart"])


def span(seg):
    a, b = seg["sessionStart"], seg["sessionEnd"]
    return b["value"] / b["timescale"] - a["value"] / a["timescale"]


def expected_frames(manifest):
    """(size, stamp) of every written frame in manifest order."""
    frames = []
    for seg in manifest["segments"]:
        frames += [((seg["width"], seg["height"]), seg["firstFrameIndex"] + i) for i in range(seg["frameCount"])]
    return frames


def tree_digest(folder):
    """SHA-256 over every file under `folder` (relative path and bytes), subfolders included
    (`segrec report` adds report-posters/)."""
    h = hashlib.sha256()
    folder = pathlib.Path(folder)
    for p in sorted(folder.rglob("*")):
        h.update(str(p.relative_to(folder)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def write_json(path, obj):
    path = pathlib.Path(path)
    path.write_text(json.dumps(obj))
    return path


def record_scenario(binary, tmp_path, name, scenario):
    """`segrec record` of `scenario` (written to tmp_path/NAME.json) into tmp_path/NAME, ultrafast
    and quiet; returns (the completed process, the output folder)."""
    out = tmp_path / name
    rec = run([binary, "record", "--scenario", write_json(tmp_path / f"{name}.json", scenario), "--output", out,
               "--preset", "ultrafast", "--quiet"])
    return rec, out
