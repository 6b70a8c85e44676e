import type { ToneOfVoice } from './facet-values';

type Headline = (Focus: string, focus: string, at: string) => string;
type Opener = (focus: string, persona: string) => string;
type Closer = (focus: string) => string;

/** Phrasings for one family of tones; variants take turns through each list. */
export interface Voice {
  headlines: readonly Headline[];
  openers: readonly Opener[];
  closers: readonly Closer[];
}

const formal: Voice = {
  headlines: [
    (F, _f, at) => `${F}${at}: what it means in practice`,
    (_F, f, at) => `How we approach ${f}${at}`,
    (F, _f, at) => `${F}${at}, explained`,
    (_F, f, at) => `Inside ${f}${at}`,
  ],
  openers: [
    (f, p) => `For ${p}, here is a closer look at ${f}.`,
    (f, p) => `A question we often hear from ${p}: what about ${f}?`,
    (f, p) => `Here is a clear view of ${f} for ${p}.`,
    (f, p) => `Our view on ${f}, written for ${p}.`,
  ],
  closers: [
    (f) => `That is ${f} in practice.`,
    (f) => `We are glad to go into more detail on ${f}.`,
    () => `Happy to share more.`,
    (f) => `Questions about ${f} are welcome.`,
  ],
};

const warm: Voice = {
  headlines: [
    (_F, f, at) => `Let's talk about ${f}${at}`,
    (_F, f, at) => `A day-to-day look at ${f}${at}`,
    (_F, f, at) => `A friendly look at ${f}${at}`,
    (_F, f, at) => `Real talk about ${f}${at}`,
  ],
  openers: [
    (f, p) => `Quick question for ${p}: what role does ${f} play in your work?`,
    (f, p) => `We hear it a lot from ${p}: ${f} can make all the difference.`,
    (f, p) => `Hello, ${p}! This one is about ${f}.`,
    (f, p) => `Here is something for ${p} to think about: ${f}.`,
  ],
  closers: [
    (f) => `We would love to hear your take on ${f}.`,
    () => `Come say hello.`,
    (f) => `Thanks for reading, and tell us how you think about ${f}.`,
    () => `Our door is open.`,
  ],
};

const bold: Voice = {
  headlines: [
    (F, _f, at) => `${F}: where it all starts${at}`,
    (F, _f, at) => `${F}: the story behind the work${at}`,
    (_F, f, at) => `Why we put ${f} first${at}`,
    (_F, f, at) => `Raising the bar on ${f}${at}`,
  ],
  openers: [
    (f, p) => `${p.charAt(0).toUpperCase()}${p.slice(1)}, picture what is possible with ${f}.`,
    (f, p) => `Great work starts with ${f}. This one is for ${p}.`,
    (f, p) => `This is for ${p} with an eye for ${f}.`,
    (f, p) => `Big things happen when people take ${f} seriously. This one is for ${p}.`,
  ],
  closers: [
    (f) => `This is only the beginning for ${f}.`,
    () => `Let's build what comes next.`,
    (f) => `Be part of the story of ${f}.`,
    () => `The next chapter is yours to write.`,
  ],
};

const FAMILY: Record<ToneOfVoice, Voice> = {
  professional: formal,
  formal,
  authoritative: formal,
  confident: formal,
  friendly: warm,
  supportive: warm,
  empathetic: warm,
  casual: warm,
  playful: warm,
  inspiring: bold,
  bold,
};

export function voiceOf(tone: ToneOfVoice | undefined): Voice {
  return tone ? (FAMILY[tone] ?? formal) : formal;
}
