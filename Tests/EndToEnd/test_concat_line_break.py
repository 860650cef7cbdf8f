"""A recording folder whose name holds a line break (issue 44 item 9): `export --concat`
never writes a list FFmpeg rejects. A list outside the folder would need the break in a
path, which an ffconcat list (read line by line) cannot carry: exit 65 naming the list,
`--concat` and what is allowed, nothing written. A list inside the folder names the files
alone and plays: ffprobe decodes every frame through it. The build before wrote the broken
list and exited 0 (FFmpeg: "unknown keyword")."""
import e2e_helpers as h


def test_a_line_break_in_the_folder_name(binary, tmp_path):
    clip = tmp_path / "clip.y4m"
    made = h.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=50", "-frames:v", "10", "-pix_fmt", "yuv420p", clip])
    assert made.returncode == 0, made.stderr
    rec = tmp_path / "cam\nday"
    r = h.run([binary, "record", "--source", clip, "--output", rec])
    assert r.returncode == 0, r.stderr
    frames = h.load_manifest(rec)["frames"]["written"]
    outside = tmp_path / "list.ffconcat"
    r = h.run([binary, "export", rec, "--concat", outside])
    assert r.returncode == 65, r.stderr
    assert f"{outside}: --concat: the path from the list to the segment files, 'cam\\nday', holds a line break" in r.stderr
    assert "allowed: names without line breaks, or the list inside the recording folder" in r.stderr
    assert not outside.exists()
    inside = rec / "list.ffconcat"
    r = h.run([binary, "export", rec, "--concat", inside])
    assert r.returncode == 0, r.stderr
    out = h.run(["ffprobe", "-v", "error", "-f", "concat", "-safe", "0", "-select_streams", "v:0", "-count_frames",
                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", inside])
    assert out.returncode == 0 and int(out.stdout.split()[0]) == frames == 10, (out.stdout, out.stderr, frames)
