/// The page's AudioWorklet (`/web/pcm-worklet.js`): the microphone's samples as 16-bit PCM in 100 ms chunks.
/// Plain text, served as it is (`WebAsset`): edit it here; there is no build step.
let webPCMWorkletJS = #"""
// AuralKit's web page: the microphone's samples as 16-bit PCM, posted to the page in 100 ms chunks (an ArrayBuffer
// of little-endian Int16 each; the page sends them as OpenAI Realtime's input_audio_buffer.append).
class PCM16Chunker extends AudioWorkletProcessor {
  constructor() {
    super();
    this.size = Math.round(sampleRate / 10);
    this.chunk = new Int16Array(this.size);
    this.filled = 0;
  }

  process(inputs) {
    const samples = inputs[0] && inputs[0][0];
    if (!samples) return true;
    for (let i = 0; i < samples.length; i++) {
      const clamped = Math.max(-1, Math.min(1, samples[i]));
      this.chunk[this.filled++] = Math.round(clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff);
      if (this.filled === this.size) {
        this.port.postMessage(this.chunk.buffer, [this.chunk.buffer]);  // transferred: a new chunk follows
        this.chunk = new Int16Array(this.size);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor("pcm16-chunker", PCM16Chunker);
"""#
