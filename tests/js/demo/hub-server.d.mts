// Types of hub-server.mjs: a stand-in for the Hugging Face Hub (and its CDN) on other origins.

export interface Hub {
  /** http://127.0.0.1:<port>: the page's hubUrl. */
  origin: string;
  /** Where the weights are redirected to, as the Hub redirects large files to its CDN. */
  cdnOrigin: string;
  /** "hub GET /org/x/resolve/main/config.json", "cdn GET /blobs/…", in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export function startHub(repos: Record<string, string>, options?: { corp?: 'cross-origin' | 'same-site' | 'same-origin' }): Promise<Hub>;
