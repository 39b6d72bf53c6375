// Types of page-dom.mjs: a visitor's actions on an EnginePage, the same in every engine.
import type { EnginePage } from './engines.mjs';

export function waitForSelector(page: EnginePage, selector: string, timeoutMs?: number): Promise<void>;
export function click(page: EnginePage, selector: string, timeoutMs?: number): Promise<void>;
export function fill(page: EnginePage, selector: string, value: string, timeoutMs?: number): Promise<void>;
export function selectOption(page: EnginePage, selector: string, value: string, timeoutMs?: number): Promise<void>;
export function check(page: EnginePage, selector: string, timeoutMs?: number): Promise<void>;
export function textOf(page: EnginePage, selector: string): Promise<string | null>;
export function textsOf(page: EnginePage, selector: string): Promise<string[]>;
export function countOf(page: EnginePage, selector: string): Promise<number>;
export function attributeOf(page: EnginePage, selector: string, name: string): Promise<string | null>;
export function valueOf(page: EnginePage, selector: string): Promise<string | null>;
export function isVisible(page: EnginePage, selector: string): Promise<boolean>;
export function pickFiles(page: EnginePage, selector: string, baseUrl: string, names: readonly string[], folder: string): Promise<void>;
