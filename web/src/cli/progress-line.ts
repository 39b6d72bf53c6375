// The load progress of a fetched model on stderr: on a terminal, one line redrawn in place as the
// bytes arrive (a bar, the percentage, megabytes); elsewhere (a log, a pipe) a plain line at every
// tenth, so that a log stays short.
import type { LoadProgressEvent } from '../options.js';

const kBarWidth = 24;

const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

export interface ProgressPrinter {
  /** For LoadOptions.onProgress. */
  onProgress: (event: LoadProgressEvent) => void;
  /** Writes another message (a warning) on a line of its own, below a line being redrawn. */
  write: (text: string) => void;
}

/** Progress lines through `write`: redrawn in place when `terminal`, a line per tenth otherwise. */
export function progressPrinter(write: (text: string) => void, terminal: boolean): ProgressPrinter {
  let shown = -1;
  let lineOpen = false;
  const onProgress = (event: LoadProgressEvent): void => {
    if (event.type === 'total') {
      const fraction = event.total > 0 ? Math.min(1, event.loaded / event.total) : 1;
      const step = terminal ? Math.floor(fraction * 100) : Math.floor(fraction * 10);
      if (step === shown) return;
      shown = step;
      const amount = `${megabytes(event.loaded)} of ${megabytes(event.total)} MB`;
      if (terminal) {
        const filled = Math.round(fraction * kBarWidth);
        write(`\rlaya-wasm: loading [${'#'.repeat(filled)}${'.'.repeat(kBarWidth - filled)}] ${step}% ${amount}\x1b[K`);
        lineOpen = true;
      } else {
        write(`laya-wasm: loading ${step * 10}% (${amount})\n`);
      }
    } else if (event.type === 'ready') {
      write(`${lineOpen ? '\n' : ''}laya-wasm: model ready\n`);
      lineOpen = false;
    }
  };
  return {
    onProgress,
    write: (text) => {
      write(`${lineOpen ? '\n' : ''}${text}`);
      lineOpen = false;
    },
  };
}
