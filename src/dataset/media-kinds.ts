// The synthetic media kinds, apart from their encoders: the config schemas list them without loading fast-png or lamejs.
export const IMAGE_FORMATS = ['png', 'jpeg'] as const;
export const IMAGE_CONTENTS = ['noise', 'gradient', 'solid'] as const;
export const AUDIO_FORMATS = ['wav', 'mp3'] as const;
export const AUDIO_CONTENTS = ['tone', 'noise'] as const;
