// Where checkpoint files are fetched from: the Hub layout (subfolder, revision, custom hub) and
// plain base URLs.
import { LayaError } from '../../../web/src/errors.js';
import { baseFileUrls, hubFileUrls } from '../../../web/src/sources/file-urls.js';

describe('hubFileUrls', () => {
  test('defaults to huggingface.co and the main revision', () => {
    const urls = hubFileUrls({ repo: 'convaiinnovations/laya' });
    expect(urls.fileUrl('model.safetensors')).toBe('https://huggingface.co/convaiinnovations/laya/resolve/main/model.safetensors');
    expect(urls.fileUrl('encoder/config.json')).toBe('https://huggingface.co/convaiinnovations/laya/resolve/main/encoder/config.json');
  });

  test('puts the subfolder between the revision and the file', () => {
    const urls = hubFileUrls({ repo: 'convaiinnovations/laya', subfolder: '/typed-decisions/', revision: 'v0.3.7' });
    expect(urls.fileUrl('tokenizer/tokenizer.json'))
      .toBe('https://huggingface.co/convaiinnovations/laya/resolve/v0.3.7/typed-decisions/tokenizer/tokenizer.json');
    expect(urls.description).toBe('https://huggingface.co/convaiinnovations/laya (revision v0.3.7, subfolder typed-decisions)');
  });

  test('encodes a revision with slashes as one path segment', () => {
    expect(hubFileUrls({ repo: 'a/b', revision: 'refs/pr/1' }).fileUrl('rl_agent_config.json'))
      .toBe('https://huggingface.co/a/b/resolve/refs%2Fpr%2F1/rl_agent_config.json');
  });

  test('uses a custom hub URL, with or without a trailing slash', () => {
    for (const hubUrl of ['https://mirror.example/hf', 'https://mirror.example/hf/']) {
      expect(hubFileUrls({ repo: 'a/b', hubUrl }).fileUrl('model.safetensors'))
        .toBe('https://mirror.example/hf/a/b/resolve/main/model.safetensors');
    }
  });

  test('rejects a malformed repo, revision or subfolder naming it', () => {
    expect(() => hubFileUrls({ repo: 'a/b/c' })).toThrow(LayaError);
    expect(() => hubFileUrls({ repo: 'a/b/c' })).toThrow('repo must look like "owner/name"');
    expect(() => hubFileUrls({ repo: 'a/b', revision: '' })).toThrow('revision');
    expect(() => hubFileUrls({ repo: 'a/b', subfolder: '../x' })).toThrow('subfolder');
  });
});

describe('baseFileUrls', () => {
  test('adds the missing slash so files land inside the folder', () => {
    expect(baseFileUrls({ url: 'https://cdn.example/models/laya' }).fileUrl('encoder/config.json'))
      .toBe('https://cdn.example/models/laya/encoder/config.json');
    expect(baseFileUrls({ url: new URL('https://cdn.example/m/') }).fileUrl('model.safetensors'))
      .toBe('https://cdn.example/m/model.safetensors');
  });

  test('a relative URL outside a page is invalid_request naming it', () => {
    expect(() => baseFileUrls({ url: 'models/laya' })).toThrow('url is not a valid absolute URL: "models/laya"');
  });
});
