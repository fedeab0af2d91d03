// Transitional: Send's calls move to ../once when its split lands.
export * from '../once/rows';
