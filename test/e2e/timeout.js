'use strict';
// The e2e projects' setup (setupFilesAfterEnv): a real n8n, its restarts and its runs take minutes,
// so their tests get up to 15 minutes each, however jest is called. The unit and integration
// projects keep jest's 5 s.
jest.setTimeout(900_000);
