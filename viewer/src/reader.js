// The page's profile reader: opens profiles the user picks or drops on the page by the rules of
// `coz report --json`, with the reader and analysis themselves compiled to WebAssembly
// (coz-cli/wasm/page_reader.cpp, inlined by `coz plot` as base64 in #coz-reader). A JSON report
// (`coz report --json > r.json`) opens as it is. Nothing leaves the page: files are read with
// the File API, and the module has no way out (every system call it could make fails, and its
// writes go nowhere).
const ENOSYS = 52;
const MAX_BYTES = 256 * 1024 * 1024;  // what coz report reads of one profile (kMaxProfileBytes)
let loaded = null;  // the WebAssembly module's exports, once instantiated

async function instantiate() {
  if (loaded) {
    return loaded;
  }
  const holder = document.getElementById('coz-reader');
  const text = holder ? holder.textContent.trim() : '';
  if (!text) {
    // coz built without its WebAssembly toolchain (COZ_PAGE_READER) writes pages without one.
    throw new Error('this page has no profile reader (its coz was built without one): open a ' +
                    'JSON report instead, written by coz report --json PROFILE > report.json');
  }
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const module = await WebAssembly.compile(bytes);
  let instance = null;
  // fd_write: the bytes are taken as written and dropped (nothing reads the module's output).
  const fdWrite = (fd, iovs, count, written) => {
    const view = new DataView(instance.exports.memory.buffer);
    let total = 0;
    for (let i = 0; i < count; i++) {
      total += view.getUint32(iovs + 8 * i + 4, true);
    }
    view.setUint32(written, total, true);
    return 0;
  };
  const imports = {};
  for (const wanted of WebAssembly.Module.imports(module)) {
    if (wanted.kind === 'function') {
      imports[wanted.module] = imports[wanted.module] || {};
      imports[wanted.module][wanted.name] = wanted.name === 'fd_write' ? fdWrite : () => ENOSYS;
    }
  }
  instance = await WebAssembly.instantiate(module, imports);
  if (instance.exports._initialize) {
    instance.exports._initialize();
  }
  loaded = instance.exports;
  return loaded;
}

function result(r) {
  const start = r.coz_result() >>> 0;
  return new TextDecoder().decode(new Uint8Array(r.memory.buffer, start, r.coz_result_size() >>> 0));
}

function copyIn(r, bytes) {
  const at = r.coz_alloc(bytes.length) >>> 0;
  if (at === 0) {
    throw new Error('out of memory reading it');
  }
  new Uint8Array(r.memory.buffer, at, bytes.length).set(bytes);
  return at;
}

// A JSON report, as `coz report --json` writes it, or null.
function asReport(bytes) {
  if (bytes.length === 0 || bytes[0] !== 0x7b) {  // '{'
    return null;
  }
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes));
    return json && json.schema === 'coz-amp-report' ? json : null;
  } catch (e) {
    return null;  // JSON lines (Coz's own format): a profile for the reader
  }
}

// The report for `files` (File objects): several profiles merge as on the command line. Rejects
// with an Error whose message names the file and what is wrong.
export async function open(files) {
  files = Array.from(files);
  if (files.length === 0) {
    throw new Error('no file to open');
  }
  const contents = [];
  const seen = new Map();  // names without their folders: two dropped profile.coz stay two
  for (const file of files) {
    if (file.size > MAX_BYTES) {
      throw new Error(file.name + ' is ' + Math.ceil(file.size / 1048576) + ' MiB, more than the 256 MiB a ' +
                      'profile may hold; split it into whole lines (split -C 200M) and open the parts');
    }
    const count = (seen.get(file.name) || 0) + 1;
    seen.set(file.name, count);
    const name = count > 1 ? file.name + ' (' + count + ')' : file.name;
    contents.push({ name: name, bytes: new Uint8Array(await file.arrayBuffer()) });
  }
  if (contents.length === 1) {
    const report = asReport(contents[0].bytes);
    if (report) {
      return report;
    }
  }
  const r = await instantiate();
  try {
    return readAll(r, contents);
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) {
      loaded = null;  // a trapped module may be left broken: the next open starts afresh
      throw new Error('the page\'s reader failed (' + error.message + ')');
    }
    throw error;
  }
}

function readAll(r, contents) {
  r.coz_begin();
  const encoder = new TextEncoder();
  for (const { name, bytes } of contents) {
    const nameBytes = encoder.encode(name);
    const nameAt = copyIn(r, nameBytes);
    const textAt = copyIn(r, bytes);
    const failed = r.coz_add(nameAt, nameBytes.length, textAt, bytes.length);
    r.coz_free(nameAt);
    r.coz_free(textAt);
    if (failed) {
      throw new Error(result(r));
    }
  }
  r.coz_report();
  return JSON.parse(result(r));
}
