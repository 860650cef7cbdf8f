"""A recording folder whose name holds a line break (issue 44 item 9, issue 46 item 4):
`export --concat` never writes a list FFmpeg rejects. A list outside the folder would need
the break in a path, which an ffconcat list (read line by line) cannot carry, so it names
the files through symbolic links in a folder beside it (`list-files/`), paths FFmpeg's
concat demuxer takes even with its default safe=1; a list inside the folder names the files
alone. Both play: ffprobe decodes every frame through them without `-safe 0`. (Issue 44's
build wrote a broken list and exited 0; the build before issue 46 refused the outside list,
exit 65.)"""
import e2e_helpers as h


def frames_through(listed):
    out = h.run(["ffprobe", "-v", "error", "-f", "concat", "-select_streams", "v:0", "-count_frames",
                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", listed])
    return out.returncode, out.stdout.split()[0] if out.stdout.split() else "", out.stderr


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
    assert r.returncode == 0, r.stderr
    text = outside.read_text()
    assert "file 'list-files/segment-000.mp4'" in text and "cam" not in text, text
    code, read, err = frames_through(outside)
    assert code == 0 and int(read) == frames == 10, (read, err, frames)
    inside = rec / "list.ffconcat"
    r = h.run([binary, "export", rec, "--concat", inside])
    assert r.returncode == 0, r.stderr
    code, read, err = frames_through(inside)
    assert code == 0 and int(read) == frames == 10, (read, err, frames)
