'use strict';
/** What the registration methods of `Server` return: a handle to the registered item. */

/**
 * What `registerTool` returns: the tool's `name`, `remove()` and `update(changes)`. One object
 * per tool with its methods on the prototype, not two closures and their context: a server
 * registering thousands of tools makes them all.
 */
class RegisteredTool {
  #server;
  #name;
  #config;
  #handler;

  constructor(server, name, config, handler) {
    this.name = name;
    this.#server = server;
    this.#name = name;
    this.#config = config;
    this.#handler = handler;
  }

  /** Remove the tool (publishes tools/list_changed). Returns whether it existed. */
  remove() {
    return this.#server.removeTool(this.#name);
  }

  /** Re-register with `changes` merged into the config (`name`, `callback` or `handler` too). */
  update(changes) {
    const merged = { ...this.#config, ...changes };
    this.#server.removeTool(this.#name);
    return this.#server.registerTool(changes.name ?? this.#name, merged, changes.callback ?? changes.handler ?? this.#handler);
  }
}

/** What `registerResource` and `registerPrompt` return: the item's `name` and `remove()`. */
function registered(entry, remove, update) {
  return {
    name: entry.name,
    remove,
    update: update ?? (() => { throw new Error('update() is only supported for tools'); }),
  };
}

module.exports = { RegisteredTool, registered };
