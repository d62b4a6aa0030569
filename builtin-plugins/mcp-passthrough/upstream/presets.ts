/**
 * Provider presets: the extension point of upstream formats. The builtin ones fill the registry exactly as another
 * plugin would through the service (api.ts); a preset registered twice fails at start, not at the first call.
 */
import { anthropicProtocol } from './anthropic.js';
import { openAiProtocol } from './openai.js';
import type { ProviderPreset } from './protocol.js';

const PRESET_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * llama-server listens on 8080 unless told otherwise, which is also the node's default port: the preset expects it
 * started with `--port 8081` instead, so its default never names the node (ownAddressIn refuses any that does).
 */
export const LLAMACPP_PORT = 8081;

export const coreProviderPresets: readonly ProviderPreset[] = [
  { id: 'openai-compatible', label: 'OpenAI-compatible chat completions', protocol: openAiProtocol(), defaultEndpoint: null, requiresToken: false },
  { id: 'openai', label: 'OpenAI', protocol: openAiProtocol('max_completion_tokens'), defaultEndpoint: 'https://api.openai.com/v1', requiresToken: true },
  { id: 'openrouter', label: 'OpenRouter', protocol: openAiProtocol(), defaultEndpoint: 'https://openrouter.ai/api/v1', requiresToken: true },
  { id: 'vllm', label: 'vLLM', protocol: openAiProtocol(), defaultEndpoint: 'http://127.0.0.1:8000/v1', requiresToken: false },
  { id: 'llamacpp', label: 'llama.cpp server', protocol: openAiProtocol(), defaultEndpoint: `http://127.0.0.1:${LLAMACPP_PORT}/v1`, requiresToken: false },
  { id: 'ollama', label: 'Ollama', protocol: openAiProtocol(), defaultEndpoint: 'http://127.0.0.1:11434/v1', requiresToken: false },
  { id: 'anthropic', label: 'Anthropic Messages', protocol: anthropicProtocol(), defaultEndpoint: 'https://api.anthropic.com', requiresToken: true },
];

export class PresetRegistry {
  readonly #presets = new Map<string, ProviderPreset>();

  constructor(initial: readonly ProviderPreset[]) {
    for (const p of initial) this.register(p);
  }

  register(preset: ProviderPreset): void {
    if (!PRESET_ID.test(preset.id)) throw new Error(`provider preset id "${preset.id}" must match ${PRESET_ID}`);
    if (this.#presets.has(preset.id)) throw new Error(`provider preset "${preset.id}" is registered twice`);
    this.#presets.set(preset.id, preset);
  }

  get(id: string): ProviderPreset | null {
    return this.#presets.get(id) ?? null;
  }

  list(): ProviderPreset[] {
    return [...this.#presets.values()];
  }
}
