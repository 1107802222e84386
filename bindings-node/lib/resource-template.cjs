'use strict';
const { RegistrationError } = require('./errors.cjs');

/** A URI template (RFC 6570) for `registerResource`, as the TS SDK spells it. */
class ResourceTemplate {
  /**
   * @param {string} uriTemplate
   * @param {{ list?: undefined, complete?: Record<string, Function> }} [callbacks]
   */
  constructor(uriTemplate, callbacks = {}) {
    if (typeof uriTemplate !== 'string') throw new TypeError('ResourceTemplate needs a URI template string');
    this.uriTemplate = uriTemplate;
    this.complete = callbacks.complete ?? {};
    if (callbacks.list !== undefined && callbacks.list !== null) {
      throw new RegistrationError('ResourceTemplate `list` callbacks are not supported yet; register the concrete resources instead', 'INVALID_DEFINITION');
    }
  }
}

module.exports = { ResourceTemplate };
