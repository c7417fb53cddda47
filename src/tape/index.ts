/** Tapes: the market as the market view saw it, recorded to replay it (see format.ts). */
export * from './format.ts';
export { openTape, scanTape, surveyTape, type Tape, type TapeScan, type TapeSurvey } from './reader.ts';
export { createTapeRecorder, type TapeRecorder, type TapeRecorderOptions } from './recorder.ts';
export { openTapeWriter, type TapeWriter, type TapeWriterOptions } from './writer.ts';
