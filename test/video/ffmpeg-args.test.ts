import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCameraSource } from '../../src/modules/video/camera-source.js';
import { buildStreamArgs, filterArgs, hwaccelArgs, isHwaccelFailure, parseInputCodec, parseLavfMajor, type StreamArgsOptions } from '../../src/modules/video/ffmpeg-args.js';

const base = (over: Partial<StreamArgsOptions> = {}): StreamArgsOptions => ({
  source: parseCameraSource('rtsp://u:pw@cam/live'),
  decode: { hwaccel: 'none' },
  caps: { lavfMajor: 58 },
  maxFps: 10,
  box: { width: 416, height: 416 },
  realtime: true,
  loop: false,
  rtspTimeoutMs: 5000,
  decodeThreads: 1,
  ...over,
});

/** The value following a flag in an argv. */
const after = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];

describe('ffmpeg argv', () => {
  it('RTSP: TCP transport and the socket timeout under the name this ffmpeg uses', () => {
    const v4 = buildStreamArgs(base());
    assert.equal(after(v4, '-rtsp_transport'), 'tcp');
    assert.equal(after(v4, '-stimeout'), '5000000');
    // in ffmpeg 4, -timeout on an RTSP input means "listen as a server"
    assert.ok(!v4.includes('-timeout'));
    const v6 = buildStreamArgs(base({ caps: { lavfMajor: 60 } }));
    assert.equal(after(v6, '-timeout'), '5000000');
    assert.ok(!v6.includes('-stimeout'));
    assert.ok(v4.indexOf('-rtsp_transport') < v4.indexOf('-i'));
    assert.equal(after(v4, '-i'), 'rtsp://u:pw@cam/live');
  });

  it('files: native rate with -re, optional loop, file: protocol prefix', () => {
    const a = buildStreamArgs(base({ source: parseCameraSource('/v/a.mp4') }));
    assert.ok(a.includes('-re'));
    assert.ok(!a.includes('-stream_loop'));
    assert.equal(after(a, '-i'), 'file:/v/a.mp4');
    const b = buildStreamArgs(base({ source: parseCameraSource('/v/a.mp4'), loop: true, realtime: false }));
    assert.equal(after(b, '-stream_loop'), '-1');
    assert.ok(!b.includes('-re'));
    assert.ok(b.indexOf('-stream_loop') < b.indexOf('-i'));
  });

  it('software decode runs on video.decode_threads threads; hardware decode and 0 leave ffmpeg its own', () => {
    const one = buildStreamArgs(base());
    assert.equal(after(one, '-threads'), '1');
    assert.ok(one.indexOf('-threads') < one.indexOf('-i'), 'a decoder option goes before its input');
    assert.equal(after(buildStreamArgs(base({ decodeThreads: 4 })), '-threads'), '4');
    assert.ok(!buildStreamArgs(base({ decodeThreads: 0 })).includes('-threads'));
    assert.ok(!buildStreamArgs(base({ decode: { hwaccel: 'vaapi' } })).includes('-threads'));
    // A device is never hardware-decoded, so the setting holds there too.
    assert.equal(after(buildStreamArgs(base({ source: parseCameraSource('0'), decode: { hwaccel: 'cuda' } })), '-threads'), '1');
  });

  it('devices: v4l2 input, no hardware decode', () => {
    const a = buildStreamArgs(base({ source: parseCameraSource('0'), decode: { hwaccel: 'cuda' } }));
    assert.equal(after(a, '-f'), 'v4l2');
    assert.equal(after(a, '-i'), '/dev/video0');
    assert.ok(!a.includes('-hwaccel'));
  });

  it('decode presets: none, CUDA, VAAPI, QSV, Jetson', () => {
    const src = parseCameraSource('rtsp://cam/live');
    assert.deepEqual(hwaccelArgs({ hwaccel: 'none' }, src), []);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'cuda' }, src), ['-hwaccel', 'cuda']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'cuda', device: '1' }, src), ['-hwaccel', 'cuda', '-hwaccel_device', '1']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'vaapi', device: '/dev/dri/renderD129' }, src), ['-hwaccel', 'vaapi', '-hwaccel_device', '/dev/dri/renderD129']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'vaapi' }, src), ['-hwaccel', 'vaapi', '-hwaccel_device', '/dev/dri/renderD128']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'qsv' }, src), ['-hwaccel', 'qsv', '-qsv_device', '/dev/dri/renderD128']);
    // Jetson decoders are per codec: software until the codec is known
    assert.deepEqual(hwaccelArgs({ hwaccel: 'jetson' }, src), []);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'jetson' }, src, 'h264'), ['-c:v', 'h264_nvv4l2dec']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'jetson' }, src, 'hevc'), ['-c:v', 'hevc_nvv4l2dec']);
    assert.deepEqual(hwaccelArgs({ hwaccel: 'jetson' }, src, 'msmpeg4v3'), []);
    const argv = buildStreamArgs(base({ decode: { hwaccel: 'vaapi' } }));
    assert.ok(argv.indexOf('-hwaccel') < argv.indexOf('-i'), 'hwaccel is an input option');
  });

  it('frames: drop-only rate limit, scaled into the detector box, PPM on stdout, no duplication', () => {
    assert.equal(
      filterArgs(10, { width: 416, height: 416 }),
      "select='isnan(prev_selected_t)+gt(floor(t*10+0.001),floor(prev_selected_t*10+0.001))',scale=w=416:h=416:force_original_aspect_ratio=decrease:flags=area",
    );
    assert.match(filterArgs(7.5, { width: 416, height: 416 }), /t\*7\.5/);
    assert.doesNotMatch(filterArgs(null, { width: 416, height: 416 }), /select/);
    const v4 = buildStreamArgs(base());
    assert.equal(after(v4, '-vsync'), '0');
    assert.deepEqual(v4.slice(-5), ['-f', 'image2pipe', '-c:v', 'ppm', 'pipe:1']);
    assert.equal(after(v4, '-map'), '0:v:0');
    const v6 = buildStreamArgs(base({ caps: { lavfMajor: 60 } }));
    assert.equal(after(v6, '-fps_mode'), 'passthrough');
    assert.ok(!v6.includes('-vsync'));
  });

  it('parses the input codec, the libavformat major and hardware-decode failures', () => {
    assert.equal(parseInputCodec('    Stream #0:0: Video: h264 (High), yuv420p(progressive), 1280x720, 25 fps'), 'h264');
    assert.equal(parseInputCodec('    Stream #0:0(und): Video: mpeg4 (Simple Profile) (mp4v / 0x7634706D), yuv420p'), 'mpeg4');
    assert.equal(parseInputCodec('    Stream #0:1: Audio: aac'), undefined);
    assert.equal(parseLavfMajor('ffmpeg version 5.1.4\nlibavutil      57. 28.100 / 57. 28.100\nlibavformat    59. 27.100 / 59. 27.100'), 59);
    assert.equal(parseLavfMajor('nothing'), undefined);
    assert.ok(isHwaccelFailure('[h264 @ 0x55] Failed setup for format cuda: hwaccel initialisation returned error.'));
    assert.ok(isHwaccelFailure('[AVHWDeviceContext @ 0x5] Failed to initialise VAAPI connection: -1 (unknown libva error).'));
    assert.ok(!isHwaccelFailure('rtsp://cam/live: Connection refused'));
  });
});
